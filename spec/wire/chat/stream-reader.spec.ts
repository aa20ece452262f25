import { Readable } from 'node:stream';
import { HeldBytes } from '../../../lib/shared/held-bytes';
import { streamedReply } from '../../../lib/wire/chat/stream-reader';

const frame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) =>
  frame({ id: 'x', created: 1, model: 'm', choices: [{ index: 0, delta: d, finish_reason: finish }] });

describe('streamedReply', () => {
  it('puts text and interleaved tool-call deltas back together by index, with usage and finish reason', async () => {
    const texts: string[] = [];
    const stream = Readable.from([
      delta({ role: 'assistant', content: '' }),
      delta({ content: 'Let me ' }),
      delta({ content: 'look.' }),
      delta({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'open', arguments: '' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'read', arguments: '{"id"' } }] }),
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'open', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: ':"n1"}' } }] }),
      delta({}, 'tool_calls'),
      frame({ id: 'x', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
      'data: [DONE]\n\n',
    ]);
    const completion = await streamedReply(stream, (text) => void texts.push(text));
    expect(texts).toEqual(['Let me ', 'look.']);
    expect(completion).toEqual({
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me look.',
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'open', arguments: '{}' } },
              { id: 'b', type: 'function', function: { name: 'read', arguments: '{"id":"n1"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it.each([
    ['no [DONE]', [delta({ content: 'hi' })], 'the model stream ended without [DONE]'],
    ['no reply at all', ['data: [DONE]\n\n'], 'the model stream ended without a reply'],
    ['a frame that is not JSON', ['data: {"id": \n\n'], 'the model stream sent a malformed frame: {"id":'],
    ['a frame that is not an object', ['data: [1]\n\n'], 'the model stream sent a malformed frame: [1]'],
    ['an error frame', [frame({ error: { message: 'overloaded' } })], 'the model stream sent an error: overloaded'],
    [
      'an error frame without a message',
      [frame({ error: { code: 42 } })],
      'the model stream sent an error: {"code":42}',
    ],
  ])('fails on %s', async (_name, parts, message) => {
    await expect(streamedReply(Readable.from(parts), () => undefined)).rejects.toThrow(message);
  });

  it('fails with the reason of a stream that breaks off', async () => {
    const stream = new Readable({ read() {} });
    stream.push(delta({ content: 'hi' }));
    setImmediate(() => stream.destroy(new Error('socket hang up')));
    await expect(streamedReply(stream, () => undefined)).rejects.toThrow('socket hang up');
  });
});

describe('streamedReply: the model message whole', () => {
  const done = 'data: [DONE]\n\n';
  const read = (parts: string[]) => streamedReply(Readable.from(parts), () => undefined);

  it('accumulates the fields it does not know by the delta convention: strings joined, objects merged, lists by their index', async () => {
    const completion = await read([
      delta({
        role: 'assistant',
        content: null,
        reasoning_content: 'Let me ',
        reasoning_details: [{ type: 'reasoning.text', text: 'Let me ', format: 'anthropic-claude-v1', index: 0 }],
      }),
      delta({
        reasoning_content: 'think.',
        reasoning_details: [{ type: 'reasoning.text', text: 'think.', format: 'anthropic-claude-v1', index: 0 }],
        provider_extra: { a: 1 },
      }),
      delta({
        reasoning_content: null,
        reasoning_details: [
          { type: 'reasoning.text', signature: 'sig', index: 0 },
          { type: 'reasoning.encrypted', data: 'opaque', index: 1 },
        ],
        provider_extra: { b: [1] },
      }),
      delta({
        tool_calls: [
          {
            index: 0,
            id: 'a',
            type: 'function',
            function: { name: 'open', arguments: '' },
            extra_content: { google: { thought_signature: 'ts' } },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { arguments: '{}' } }] }, 'tool_calls'),
      done,
    ]);
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: 'Let me think.',
      reasoning_details: [
        { type: 'reasoning.text', text: 'Let me think.', format: 'anthropic-claude-v1', signature: 'sig', index: 0 },
        { type: 'reasoning.encrypted', data: 'opaque', index: 1 },
      ],
      provider_extra: { a: 1, b: [1] },
      tool_calls: [
        {
          id: 'a',
          type: 'function',
          function: { name: 'open', arguments: '{}' },
          extra_content: { google: { thought_signature: 'ts' } },
        },
      ],
    });
  });

  it('keeps the content the model gave beside its calls: "" stays "", none at all is null', async () => {
    const call = { index: 0, id: 'a', type: 'function', function: { name: 'open', arguments: '{}' } };
    expect(
      (await read([delta({ role: 'assistant', content: '' }), delta({ tool_calls: [call] }), done])).choices[0].message
        .content,
    ).toBe('');
    expect(
      (await read([delta({ role: 'assistant', content: null }), delta({ tool_calls: [call], content: null }), done]))
        .choices[0].message.content,
    ).toBeNull();
  });

  it('tells calls without an index apart (Gemini): a new id or a second name is a new call; a delta with only a signature adds to the call before', async () => {
    const completion = await read([
      delta({
        role: 'assistant',
        tool_calls: [{ id: 'g1', type: 'function', function: { name: 'open', arguments: '{"id":' } }],
      }),
      delta({ tool_calls: [{ function: { arguments: '1}' } }] }),
      delta({ tool_calls: [{ extra_content: { google: { thought_signature: 'ts1' } } }] }),
      delta({ tool_calls: [{ id: 'g2', type: 'function', function: { name: 'open', arguments: '{"id":2}' } }] }),
      delta({ tool_calls: [{ id: '', type: 'function', function: { name: 'read', arguments: '{}' } }] }),
      delta({ tool_calls: [{ id: '', type: 'function', function: { name: 'read', arguments: '{"n":1}' } }] }, 'stop'),
      done,
    ]);
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.choices[0].message.tool_calls).toEqual([
      {
        id: 'g1',
        type: 'function',
        function: { name: 'open', arguments: '{"id":1}' },
        extra_content: { google: { thought_signature: 'ts1' } },
      },
      { id: 'g2', type: 'function', function: { name: 'open', arguments: '{"id":2}' } },
      { id: '', type: 'function', function: { name: 'read', arguments: '{}' } },
      { id: '', type: 'function', function: { name: 'read', arguments: '{"n":1}' } },
    ]);
  });

  it('takes a call at index 1 with none at 0, ids and names repeated on every delta, and another id at a known index as a new call', async () => {
    const completion = await read([
      delta({ role: 'assistant', content: 'Sure.' }),
      delta({ tool_calls: [{ index: 1, id: 'f1', type: 'function', function: { name: 'open', arguments: '{"id"' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'f1', type: 'function', function: { name: 'open', arguments: ':1}' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'f2', type: 'function', function: { name: 'read', arguments: '{}' } }] }),
      done,
    ]);
    expect(completion.choices[0].message.tool_calls).toEqual([
      { id: 'f1', type: 'function', function: { name: 'open', arguments: '{"id":1}' } },
      { id: 'f2', type: 'function', function: { name: 'read', arguments: '{}' } },
    ]);
  });

  it.each([
    ['4294967294', 4294967294],
    ['-1', -1],
    ['1.5', 1.5],
    ['"__proto__"', '__proto__'],
    ['"0"', '0'],
  ])('fails the turn on a tool call index of %s, at once and touching no prototype', async (shown, index) => {
    const before = Object.getOwnPropertyNames(Array.prototype).length;
    await expect(
      read([delta({ tool_calls: [{ index, id: 'a', function: { name: 'open', arguments: '{}' } }] }), done]),
    ).rejects.toThrow(`the model stream sent a tool call with an index out of range (0 to 255): ${shown}`);
    await expect(
      read([delta({ reasoning_details: [{ type: 'reasoning.text', text: 'x', index }] }), done]),
    ).rejects.toThrow(
      `the model stream sent a 'reasoning_details' entry with an index out of range (0 to 255): ${shown}`,
    );
    expect(Object.getOwnPropertyNames(Array.prototype)).toHaveLength(before);
  });

  it('fails on more calls than any turn could take, and on tool_calls that are not a list; never sets a __proto__', async () => {
    const many = Array.from({ length: 257 }, (_, i) => ({ id: `c${i}`, function: { name: 'open', arguments: '{}' } }));
    await expect(read([delta({ tool_calls: many }), done])).rejects.toThrow(
      'the model stream sent more than 256 tool calls',
    );
    await expect(read([delta({ tool_calls: 'open' }), done])).rejects.toThrow(
      'the model stream sent tool_calls that are not a list: "open"',
    );
    const completion = await read([
      `data: {"choices":[{"index":0,"delta":{"content":"hi","__proto__":{"polluted":true},"extra":{"__proto__":{"polluted":true}}}}]}\n\n`,
      done,
    ]);
    expect(completion.choices[0].message).toEqual({ role: 'assistant', content: 'hi', extra: {} });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("holds at most maxBytes of the message, however long the stream: OpenAI's envelope and the framing are not kept", async () => {
    const openai = (d: Record<string, unknown>, finish: string | null = null) =>
      frame({
        id: 'chatcmpl-CaFvEJ1uSqtUzVQ9gKlm4nYb8wXc2',
        object: 'chat.completion.chunk',
        created: 1764547200,
        model: 'gpt-4.1-2025-04-14',
        service_tier: 'default',
        system_fingerprint: 'fp_b3f1157249',
        choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }],
        usage: null,
        obfuscation: 'x9Qe2R',
      });
    const piece = 'p'.repeat(32);
    const parts = (extra: string) => [
      openai({ role: 'assistant', content: '' }),
      ...Array.from({ length: 1000 }, () => openai({ content: piece })),
      openai({ content: extra }),
      openai({}, 'stop'),
      'data: [DONE]\n\n',
    ];
    expect(parts('').join('').length).toBeGreaterThan(200 * 1000);
    const whole = await streamedReply(Readable.from(parts('')), () => undefined, new HeldBytes(32 * 1000));
    expect(whole.choices[0].message.content).toBe(piece.repeat(1000));
    await expect(streamedReply(Readable.from(parts('!')), () => undefined, new HeldBytes(32 * 1000))).rejects.toThrow(
      'longer than maxReplyBytes = 32000',
    );
  });

  it('counts the calls and other fields the message keeps, not the names repeated on every delta', async () => {
    const call = (args: string) =>
      delta({
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write', arguments: args } }],
      });
    const ten = Array.from({ length: 10 });
    const stream = () =>
      Readable.from([
        ...ten.map(() => delta({ reasoning_content: 'r'.repeat(10) })),
        call('{"a":"'),
        ...ten.map(() => call('x'.repeat(10))),
        call('"}'),
        delta({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ]);
    // 100 of reasoning, 108 of arguments; the index, id, type and name not, however often they come
    const read = await streamedReply(stream(), () => undefined, new HeldBytes(208));
    expect(read.choices[0].message.tool_calls?.[0].function.arguments).toBe(`{"a":"${'x'.repeat(100)}"}`);
    await expect(streamedReply(stream(), () => undefined, new HeldBytes(207))).rejects.toThrow(
      'longer than maxReplyBytes = 207',
    );
  });
});
