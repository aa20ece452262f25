import { checkEndpoints, tokenEndpointOf } from '../../../lib/trellis/oauth/mix-up';

const metadata = {
  issuer: 'https://x.example.com/',
  authorization_endpoint: 'https://x.example.com/authorize',
  token_endpoint: 'https://x.example.com/token',
  registration_endpoint: 'https://x.example.com/register',
  response_types_supported: ['code'],
};

describe('checkEndpoints', () => {
  it('takes endpoints on the issuer’s origin, and no metadata at all', () => {
    expect(() => checkEndpoints(metadata)).not.toThrow();
    expect(() => checkEndpoints(undefined)).not.toThrow();
  });

  it.each(['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const)(
    'refuses a %s on another origin when the server sends no iss',
    (name) => {
      expect(() => checkEndpoints({ ...metadata, [name]: 'https://h.example.com/x' })).toThrow(
        `refused as a possible mix-up: ${name} on https://h.example.com, issuer on https://x.example.com, no iss`,
      );
    },
  );

  it('leaves the check to iss (RFC 9207) when the server says it sends it', () => {
    const elsewhere = { ...metadata, authorization_endpoint: 'https://h.example.com/authorize' };
    expect(() => checkEndpoints({ ...elsewhere, authorization_response_iss_parameter_supported: true })).not.toThrow();
  });
});

describe('tokenEndpointOf', () => {
  it('is the metadata’s token endpoint, else /token at the authorization server', () => {
    expect(
      tokenEndpointOf({ authorizationServerUrl: 'https://x.example.com/', authorizationServerMetadata: metadata }),
    ).toBe('https://x.example.com/token');
    expect(tokenEndpointOf({ authorizationServerUrl: 'https://x.example.com/tenant' })).toBe(
      'https://x.example.com/token',
    );
  });
});
