import { loggedPath, redacted, redactedArgs } from '../../lib/shared/redact';

describe('redacted', () => {
  it.each([
    [
      'a bearer token',
      'HTTP 401: invalid credentials: Bearer sk-live0123456789abcdefXYZ',
      'HTTP 401: invalid credentials: Bearer [redacted]',
    ],
    [
      'a JWT after Bearer',
      'authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
      'authorization: Bearer [redacted]',
    ],
    ['basic credentials', 'Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic [redacted]'],
    [
      'an OpenAI key',
      'Incorrect API key provided: sk-proj-abcdEFGH1234ijkl5678.',
      'Incorrect API key provided: [redacted].',
    ],
    ['an Anthropic key', 'key sk-ant-api03-abcdefghijklmnop-XYZ is invalid', 'key [redacted] is invalid'],
    ['a GitHub token', 'token ghp_abcdefghijklmnopqrstuvwxyz0123 rejected', 'token [redacted] rejected'],
    ['an x-api-key header', 'echo: {"x-api-key":"k-9f8e7d6c5b4a"}', 'echo: {"x-api-key":"[redacted]"}'],
    ['a header line', 'x-api-key: 9f8e7d6c5b4a', 'x-api-key: [redacted]'],
    [
      'a password field',
      'login failed for password=hunter22&user=ada',
      'login failed for password=[redacted]&user=ada',
    ],
    [
      'a query string',
      'fetch https://api.example/v1/search?key=abc123&q=cats failed',
      'fetch https://api.example/v1/search?[redacted] failed',
    ],
    [
      'URL user info',
      'cannot reach https://ada:s3cret@mcp.example/mcp',
      'cannot reach https://[redacted]@mcp.example/mcp',
    ],
    ['both at once', 'http://u:p@h.example/p?token=t', 'http://[redacted]@h.example/p?[redacted]'],
  ])('redacts %s', (_case, text, expected) => {
    expect(redacted(text)).toBe(expected);
  });

  it.each([
    'the model call of turn 2 failed (HTTP 500: overloaded)',
    'the token budget ran out (maxTokensPerLoop = 500, 612 used)',
    'basic arithmetic and bearer bonds are fine; a task-scheduler-service-name too',
    "'notes_read' is locked: call 'notes_open' first",
    'Trellis at http://127.0.0.1:4000/mcp answered HTTP 404 (Session not found)',
    'option \'trellis\' is {"mcp":{"oauth":{"clientSecret":"[not shown]"}},"token":"[not shown]"}',
  ])('leaves %j alone', (text) => {
    expect(redacted(text)).toBe(text);
  });
});

describe('redactedArgs', () => {
  it('redacts each argument, and the value after a flag that names a credential', () => {
    expect(
      redactedArgs([
        'server.js',
        '--api-key',
        'k-123456',
        '--token=abc123',
        '--url',
        'https://h.example/?key=1',
        '--port',
        '8080',
      ]),
    ).toEqual([
      'server.js',
      '--api-key',
      '[redacted]',
      '--token=[redacted]',
      '--url',
      'https://h.example/?[redacted]',
      '--port',
      '8080',
    ]);
  });
});

describe('loggedPath', () => {
  it.each([
    [
      '/v1beta/models/gemini-2.5-flash:generateContent?key=AIza-secret',
      '/v1beta/models/gemini-2.5-flash:generateContent',
    ],
    [
      '/v1beta/models/g:streamGenerateContent?alt=sse&key=AIza-secret',
      '/v1beta/models/g:streamGenerateContent?alt=sse',
    ],
    [
      '/v1beta/models/g:streamGenerateContent?key=AIza-secret&alt=sse',
      '/v1beta/models/g:streamGenerateContent?alt=sse',
    ],
    ['/v1/chat/completions?monkey=1', '/v1/chat/completions?monkey=1'],
    ['/v1/chat/completions', '/v1/chat/completions'],
  ])('shows %s as %s', (url, shown) => {
    expect(loggedPath(url)).toBe(shown);
  });
});
