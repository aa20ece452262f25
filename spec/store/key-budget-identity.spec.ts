import { ask, mcpRig } from '../e2e/mcp-gateway';

const clock = { name: 'clock', match: { model: 'agent-*' }, hierarchy: ['clock_now'] };
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const looking = { content: 'Looking.', toolCalls: [{ name: 'clock_now' }], usage };
const KEY = 'client-key-0123456789abcdef';
const CONFLICT =
  'the request presents different credentials in Authorization and x-api-key; send one key (the same key wherever it is sent)';
const messagesAsk = { model: 'agent-1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

async function post(url: string, path: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('one client, one identity: the key that admits is the key that is counted', () => {
  const rig = mcpRig();

  it('counts a key sent as a bearer and as x-api-key as one budget, and refuses a second credential beside the key', async () => {
    const { url } = await rig.gateway([looking, looking, looking, { content: 'never reached' }], {
      bindings: [clock],
      clientKeys: [KEY],
      keyBudget: { tokens: 300, windowSec: 3600 },
    });
    const spent = await post(url, '/v1/chat/completions', { authorization: `Bearer ${KEY}` }, ask());
    expect(spent.headers.get('x-agent-loop-stop')).toBe('key-budget');

    const asApiKey = await post(url, '/v1/chat/completions', { 'x-api-key': KEY }, ask());
    expect(asApiKey.status).toBe(429);
    const both = await post(url, '/v1/messages', { authorization: `Bearer ${KEY}`, 'x-api-key': KEY }, messagesAsk);
    expect(both).toMatchObject({ status: 429, body: { type: 'error', error: { type: 'rate_limit_error' } } });

    for (const junk of ['Basic junk-1', 'Bearer another-key-0123456789']) {
      const onChat = await post(url, '/v1/chat/completions', { authorization: junk, 'x-api-key': KEY }, ask());
      expect(onChat.status).toBe(401);
      expect(onChat.headers.get('www-authenticate')).toBe('Bearer');
      expect(onChat.body).toEqual({
        error: { message: CONFLICT, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
      const onMessages = await post(url, '/v1/messages', { authorization: junk, 'x-api-key': KEY }, messagesAsk);
      expect(onMessages).toMatchObject({
        status: 401,
        body: { type: 'error', error: { type: 'authentication_error', message: CONFLICT } },
      });
    }
    expect(rig.model.requests).toHaveLength(3);
  });

  it('answers a missing key in the wire’s own shape too', async () => {
    const { url } = await rig.gateway([{ content: 'never reached' }], { bindings: [clock], clientKeys: [KEY] });
    expect(await post(url, '/v1/messages', {}, messagesAsk)).toMatchObject({
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('client key') } },
    });
  });

  it('refuses conflicting credentials on a loop’s request where no client keys are checked (agentLoop alone)', async () => {
    const { url } = await rig.gateway([{ content: 'Noon.', usage }], { bindings: [clock] });
    const onResponses = await post(
      url,
      '/v1/responses',
      { authorization: 'Bearer key-one', 'x-api-key': 'key-two' },
      { model: 'agent-1', input: 'hi' },
    );
    expect(onResponses).toMatchObject({
      status: 401,
      body: { error: { message: CONFLICT, type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    const same = await post(
      url,
      '/v1/chat/completions',
      { authorization: 'Bearer key-one', 'x-api-key': 'key-one' },
      ask(),
    );
    expect(same.status).toBe(200);
    expect(rig.model.requests).toHaveLength(1);
  });
});
