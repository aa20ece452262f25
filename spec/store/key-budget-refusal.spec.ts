import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ask, mcpRig } from '../e2e/mcp-gateway';

const clock = { name: 'clock', match: { model: 'agent-*' }, hierarchy: ['clock_now'] };
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const looking = { content: 'Looking.', toolCalls: [{ name: 'clock_now' }], usage };
const NOTE =
  "[agent-loop] Stopped before a final answer: this key's token budget ran out (keyBudget = 300 tokens per 3600s).";

describe('the token budget of a client key (keyBudget), without a store: per process', () => {
  const rig = mcpRig();

  it('stops the loop that spends it like maxTokensPerLoop, then answers a new loop of that key 429 in its wire’s shape', async () => {
    const { client, url } = await rig.gateway([looking, looking, looking, { content: 'never reached' }], {
      bindings: [clock],
      keyBudget: { tokens: 300, windowSec: 3600 },
    });
    const { data, response } = await client.chat.completions.create(ask('what time is it?')).withResponse();
    expect(response.headers.get('x-agent-loop-stop')).toBe('key-budget');
    expect(data.choices[0].message.content).toBe(`Looking.\n\nLooking.\n\nLooking.\n\n${NOTE}`);

    const refused = await client.chat.completions.create(ask()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(error.headers.get('x-agent-loop-stop')).toBe('key-budget');
    expect(Number(error.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(error.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(error.error).toEqual({
      message: expect.stringMatching(
        /^agent-loop: this key's token budget is spent \(keyBudget = 300 tokens per 3600s, 360 used\); it renews in \d+s\.$/,
      ),
      type: 'tokens',
      param: null,
      code: 'rate_limit_exceeded',
    });
    expect(rig.model.requests).toHaveLength(3);

    const anthropic = new Anthropic({ baseURL: url, apiKey: 'client-key', maxRetries: 0 });
    const onMessages = await anthropic.messages
      .create({ model: 'agent-1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(onMessages).toBeInstanceOf(Anthropic.RateLimitError);
    expect((onMessages as InstanceType<typeof Anthropic.RateLimitError>).error).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.stringContaining("this key's token budget is spent") },
    });

    const otherKey = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'another-client-key', maxRetries: 0 });
    rig.model.setScript([{ content: 'Noon.', usage }]);
    expect(
      (await otherKey.chat.completions.create(ask()).withResponse()).response.headers.get('x-agent-loop-stop'),
    ).toBe('final');
  });

  it('is tunable at run time: lifted, the spent key runs again', async () => {
    const { client, loop } = await rig.gateway([looking, { content: 'Noon.', usage }, { content: 'Noon.', usage }], {
      bindings: [clock],
      keyBudget: { tokens: 100, windowSec: 60 },
    });
    expect((await client.chat.completions.create(ask()).withResponse()).response.headers.get('x-agent-loop-stop')).toBe(
      'key-budget',
    );
    await expect(client.chat.completions.create(ask())).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    loop.settings.update({ keyBudget: null });
    expect(loop.settings.get().keyBudget).toBeUndefined();
    expect((await client.chat.completions.create(ask()).withResponse()).response.headers.get('x-agent-loop-stop')).toBe(
      'final',
    );
  });
});
