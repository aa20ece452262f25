import { localTrellis } from '../../lib/testing';
import { rig } from './tool-search-gateway';

const COMMENT = /^: task build [\da-f-]{36} (.*)$/;
const trellis = localTrellis([
  { name: 'build', handler: () => 'built', task: { steps: ['compiling', 'linking'], stepMs: 20 } },
]);
const bindings = [{ name: 'builds', match: { model: '*' }, hierarchy: 'build' }];

/** The SSE comments about the task in a raw stream, which no official client shows. */
async function taskComments(baseURL: string, path: string, body: unknown): Promise<string[]> {
  const response = await fetch(`${baseURL}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer client-key',
      'x-api-key': 'client-key',
      'anthropic-version': '2023-06-01',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return text
    .split('\n')
    .map((line) => COMMENT.exec(line)?.[1])
    .filter((line) => line !== undefined);
}

describe("a task's status on the three wires: SSE comments, and the official clients read the streams as before", () => {
  const state = rig();
  const statuses = ['working: compiling', 'working: linking', 'completed'];

  it('chat completions', async () => {
    const { openai } = await state.gateway({ trellis, bindings });
    const script = [{ toolCalls: [{ name: 'build' }] }, { content: 'Built.' }];
    state.model.setScript(script);
    const ask = { model: 'agent-1', messages: [{ role: 'user' as const, content: 'build' }], stream: true as const };
    expect(await taskComments(openai.baseURL, '/chat/completions', ask)).toEqual(statuses);
    state.model.setScript(script);
    let text = '';
    for await (const chunk of await openai.chat.completions.create(ask)) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Built.');
  });

  it('Responses', async () => {
    const { openai } = await state.gateway({ trellis, bindings });
    const script = [{ calls: [{ name: 'build' }] }, { text: 'Built.' }];
    state.responses.setScript(script);
    const ask = { model: 'agent-1', input: 'build', stream: true as const };
    expect(await taskComments(openai.baseURL, '/responses', ask)).toEqual(statuses);
    state.responses.setScript(script);
    let text = '';
    for await (const event of await openai.responses.create(ask))
      if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Built.');
  });

  it('Messages', async () => {
    const { openai, anthropic } = await state.gateway({ trellis, bindings });
    const script = [{ toolUses: [{ name: 'build' }] }, { text: 'Built.' }];
    state.messages.setScript(script);
    const ask = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user' as const, content: 'build' }] };
    expect(await taskComments(openai.baseURL, '/messages', { ...ask, stream: true })).toEqual(statuses);
    state.messages.setScript(script);
    const message = await anthropic.messages.stream(ask).finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Built.' })]);
  });
});
