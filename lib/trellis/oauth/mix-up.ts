import type { AuthorizationServerMetadata, OAuthDiscoveryState } from '@modelcontextprotocol/client';

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const;

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Metadata naming an endpoint off its issuer's origin could send the person to consent at another authorization
 * server, whose code would then go to this one's token endpoint (a mix-up). It is refused, unless the server says it
 * sends `iss` (RFC 9207): the SDK then requires the callback's `iss` to be this issuer before any code is sent.
 */
export function checkEndpoints(metadata: AuthorizationServerMetadata | undefined): void {
  if (!metadata || metadata.authorization_response_iss_parameter_supported === true) return;
  const origin = originOf(metadata.issuer);
  for (const name of ENDPOINTS) {
    const endpoint = metadata[name];
    if (endpoint !== undefined && (origin === undefined || originOf(endpoint) !== origin))
      throw new Error(
        `refused as a possible mix-up: ${name} on ${originOf(endpoint) ?? endpoint}, ` +
          `issuer on ${origin ?? metadata.issuer}, no iss`,
      );
  }
}

/** Where the SDK exchanges a code of this discovery. */
export const tokenEndpointOf = ({ authorizationServerMetadata, authorizationServerUrl }: OAuthDiscoveryState): string =>
  authorizationServerMetadata?.token_endpoint ?? new URL('/token', authorizationServerUrl).href;
