import { mcpRig } from '../e2e/mcp-gateway';

const clock = { name: 'clock', match: { model: 'agent-*' }, hierarchy: ['clock_now'] };
const user = [{ role: 'user', content: 'what time is it?' }];
const invalidType = (param: string, got: string) => ({
  error: {
    message: `Invalid type for '${param}': expected ${param === 'tools' ? 'an array' : 'an object'}, but got ${got} instead.`,
    type: 'invalid_request_error',
    param,
    code: 'invalid_type',
  },
});

async function post(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('a request the loop refuses before it runs, in its wire’s error shape', () => {
  const rig = mcpRig();

  it('answers `tools` that is not a list of objects 400 on every wire, as the API would, and asks no model', async () => {
    const { url } = await rig.gateway([{ content: 'never reached' }], { bindings: [clock] });
    const chat = { model: 'agent-1', messages: user };
    expect(await post(url, '/v1/chat/completions', { ...chat, tools: 'x' })).toEqual({
      status: 400,
      body: invalidType('tools', 'a string'),
    });
    expect(await post(url, '/v1/chat/completions', { ...chat, tools: [null] })).toEqual({
      status: 400,
      body: invalidType('tools[0]', 'null'),
    });
    expect(await post(url, '/v1/responses', { model: 'agent-1', input: 'hi', tools: { type: 'function' } })).toEqual({
      status: 400,
      body: invalidType('tools', 'an object'),
    });
    expect(await post(url, '/v1/messages', { model: 'agent-1', max_tokens: 9, messages: user, tools: 7 })).toEqual({
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: "Invalid type for 'tools': expected an array, but got a number instead.",
        },
      },
    });
    expect(rig.model.requests).toHaveLength(0);
  });

  it('runs a request whose `tools` is null or a list of objects', async () => {
    const { url } = await rig.gateway([{ content: 'Noon.' }], { bindings: [clock] });
    expect((await post(url, '/v1/chat/completions', { model: 'agent-1', messages: user, tools: null })).status).toBe(
      200,
    );
    expect((await post(url, '/v1/chat/completions', { model: 'agent-1', messages: user, tools: [] })).status).toBe(200);
    expect(rig.model.requests).toHaveLength(2);
  });
});
