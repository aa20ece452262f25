import { startModelServer } from '../../fixtures/model-server';
import type { ModelServer } from '../../fixtures/model-server';
import { llmJudge } from '../../lib/judge/llm';
import { createJudgeRunner } from '../../lib/judge/runner';
import type { ChatCompletion, ChatMessage, JudgeContext, Logger } from '../../lib/types';
import { judgeContext, toolCall, toolResult } from './inputs';

let model: ModelServer;
const signals: AbortSignal[] = [];

/** Stands in for the core's front-door self-call: a real HTTP request to the scripted model. */
async function complete(body: Record<string, unknown>, signal: AbortSignal): Promise<ChatCompletion> {
  signals.push(signal);
  const response = await fetch(`${model.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-mcp-internal': 'signed-marker' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw new Error(`model replied ${response.status}`);
  return (await response.json()) as ChatCompletion;
}

const context = (): JudgeContext & { loopId: string } => judgeContext({ complete });
const judge = llmJudge({ model: 'judge-1', policy: 'Never let secrets or files outside /srv/docs through.' });
const silentLogger: Logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn(), debug: jest.fn() };

beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());
beforeEach(() => {
  model.requests.length = 0;
  signals.length = 0;
});

describe('llmJudge', () => {
  it.each([
    [
      { modle: 'gpt-4o-mini', policy: 'p' },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "llmJudge: unknown option 'llm.modle'. Did you mean `model`? Known options here: model, policy.",
    ],
    [
      { model: 'gpt-4o-mini' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "llmJudge: option 'llm.policy' is undefined; it must be { model, policy }, e.g. llm: { model: 'gpt-4o-mini', policy: 'Block any call that deletes data.' }.",
    ],
  ])('refuses %j when made, like the judge: { llm } option', (options, code, message) => {
    expect(() => llmJudge(options as never)).toThrow(expect.objectContaining({ code, message }));
  });

  it('asks the model once, with the policy, strict JSON instructions and the input', async () => {
    model.setScript([{ content: '{"action":"allow","reason":"inside /srv/docs"}' }]);
    const messages: ChatMessage[] = Array.from({ length: 8 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `m${i}`,
    }));
    const verdict = await judge.evaluate(toolCall('fs_read', { path: '/srv/docs/a' }, messages), context());

    expect(verdict).toEqual({ action: 'allow', reason: 'inside /srv/docs' });
    expect(model.requests).toHaveLength(1);
    const { body, headers } = model.requests[0];
    expect(headers['x-mcp-internal']).toBe('signed-marker');
    expect(body).toMatchObject({ model: 'judge-1', temperature: 0, response_format: { type: 'json_object' } });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0].content).toContain('Never let secrets or files outside /srv/docs through.');
    expect(body.messages[0].content).toContain(
      'Reply with only a JSON object, no prose and no code fence:\n{"action":"allow"|"block"|"rewrite"|"ask","reason":"why, addressed to the agent","arguments":{},"result":"..."}\n"ask" (on "tool_call" only) hands the call to a person to approve before it runs; "approved": true in the input means a person already did.',
    );
    expect(JSON.parse(body.messages[1].content as string)).toEqual({
      surface: 'tool_call',
      binding: 'docs',
      tool: 'fs_read',
      arguments: { path: '/srv/docs/a' },
      recent_messages: messages.slice(2),
    });
  });

  it('sends the result on the context surface and takes a rewrite', async () => {
    model.setScript([{ content: '{"action":"rewrite","result":"key: [redacted]","reason":"api key"}' }]);
    const verdict = await judge.evaluate(toolResult('fs_read', 'key: sk-123', { path: '/srv/docs/a' }), context());
    expect(verdict).toEqual({ action: 'rewrite', result: 'key: [redacted]', reason: 'api key' });
    expect(JSON.parse(model.requests[0].body.messages[1].content as string)).toEqual({
      surface: 'context',
      binding: 'docs',
      tool: 'fs_read',
      arguments: { path: '/srv/docs/a' },
      result: 'key: sk-123',
    });
  });

  it('tolerates a ```json fence', async () => {
    model.setScript([{ content: '```json\n{"action":"block","reason":"outside /srv/docs"}\n```' }]);
    await expect(judge.evaluate(toolCall('fs_read', { path: '/etc' }), context())).resolves.toEqual({
      action: 'block',
      reason: 'outside /srv/docs',
    });
  });

  it.each([
    ['prose', 'Looks fine to me.', 'llm judge reply is not JSON'],
    [
      'an unknown action',
      '{"action":"maybe"}',
      'llm judge reply is not a valid verdict: action must be allow, block, rewrite or ask, got "maybe"',
    ],
    ['a block without reason', '{"action":"block"}', 'llm judge reply is not a valid verdict: a block needs a reason'],
    [
      'a rewrite missing its arguments',
      '{"action":"rewrite","result":"x"}',
      'llm judge reply is not a valid verdict: a tool_call rewrite needs an arguments object',
    ],
    ['a JSON array', '[{"action":"allow"}]', 'llm judge reply is not a valid verdict: the verdict is not an object'],
    ['no content at all', null, 'llm judge reply has no text content'],
  ])('throws on %s', async (_name, content, message) => {
    model.setScript([{ content }]);
    await expect(judge.evaluate(toolCall('fs_read', {}), context())).rejects.toThrow(new Error(message));
  });
});

describe('the llm option through the runner', () => {
  const runner = createJudgeRunner(
    { llm: { model: 'judge-1', policy: 'p' }, mode: 'enforce', timeoutSec: 0.3, onError: 'block' },
    silentLogger,
  );

  it('blocks as the model says', async () => {
    model.setScript([{ content: '{"action":"block","reason":"outside /srv/docs"}' }]);
    await expect(runner.review(toolCall('fs_read', { path: '/etc' }), context())).resolves.toEqual({
      blocked: true,
      reason: 'outside /srv/docs',
    });
  });

  it('fails closed on a garbage reply', async () => {
    model.setScript([{ content: 'ALLOW!!' }]);
    await expect(runner.review(toolCall('fs_read', {}), context())).resolves.toEqual({
      blocked: true,
      reason: 'judge failed: llm judge reply is not JSON',
    });
  });

  it('fails closed on a broken model', async () => {
    model.setScript([{ raw: '{"choices":' }]);
    const decision = await runner.review(toolCall('fs_read', {}), context());
    expect(decision).toEqual({ blocked: true, reason: 'judge failed: Unexpected end of JSON input' });
  });

  it('times out a slow model and aborts its request', async () => {
    model.setScript([{ content: '{"action":"allow"}', delayMs: 3000 }]);
    await expect(runner.review(toolCall('fs_read', {}), context())).resolves.toEqual({
      blocked: true,
      reason: 'judge failed: timed out after 0.3s',
    });
    expect(signals[0].aborted).toBe(true);
  });
});
