import { messageOf, Signer } from '../../../fixtures/messages-server';
import { HeldBytes } from '../../../lib/shared/held-bytes';
import { messageEvents } from '../../../lib/testing/messages';
import { streamedReply } from '../../../lib/wire/messages/stream-reader';
import type { BlockEvent } from '../../../lib/wire/messages/types';

const sse = (events: Record<string, unknown>[]) =>
  events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');

async function* inParts(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const signer = new Signer();

describe('streamedReply: a Messages stream read back into one Message', () => {
  it.each([
    ['text', { text: 'Hello! How can I help you today?' }],
    [
      'thinking, text and tool uses',
      {
        thinking: 'The user wants the weather.\n\nCall the tool.',
        text: "I'll check.",
        toolUses: [
          { id: 'toolu_01A', name: 'get_weather', input: { location: 'Paris', units: ['c'] } },
          { id: 'toolu_01B', name: 'now', input: {} },
        ],
      },
    ],
    ['redacted thinking', { redactedThinking: true, text: 'Done.' }],
  ])('%s: every block whole, as the API answers the same reply in JSON', async (_name, step) => {
    const message = messageOf(step, 'claude-sonnet-4-6', signer);
    // a few bytes at a time: events split across reads, as on a real socket
    const read = await streamedReply(inParts(sse(messageEvents(message)), 7), () => undefined);
    expect(read).toEqual(message);
  });

  it("hands the client's blocks to the sink as they arrive, and holds the model's tool_use blocks back", async () => {
    const message = messageOf(
      { thinking: 'hmm', text: 'ok', toolUses: [{ id: 'toolu_01C', name: 'search', input: { q: 'x' } }] },
      'm',
      signer,
    );
    const seen: BlockEvent[] = [];
    await streamedReply(inParts(sse(messageEvents(message)), 64), (event) => void seen.push(event));
    expect(seen.map((event) => [event.type, event.index])).toEqual([
      ['content_block_start', 0],
      ['content_block_delta', 0],
      ['content_block_delta', 0],
      ['content_block_stop', 0],
      ['content_block_start', 1],
      ['content_block_delta', 1],
      ['content_block_stop', 1],
    ]);
    expect(seen[2]).toEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: signer.sign('hmm') },
    });
  });

  it('waits for the sink before reading on (a slow client holds the upstream back)', async () => {
    const message = messageOf({ text: 'one two three four' }, 'm', signer);
    const order: string[] = [];
    async function* source() {
      for (const event of messageEvents(message)) {
        order.push(`read ${String(event.type)}`);
        yield sse([event]);
      }
    }
    await streamedReply(source(), async (event) => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push(`sent ${event.type}`);
    });
    expect(order.indexOf('sent content_block_start')).toBeLessThan(order.indexOf('read ping'));
  });

  it("keeps message_delta's fields and cumulative usage; a null does not erase a count", async () => {
    const events = [
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 40, cache_read_input_tokens: 7, output_tokens: 1 },
        },
      },
      {
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens', stop_sequence: null, container: null },
        usage: { input_tokens: null, output_tokens: 12 },
      },
      { type: 'message_stop' },
    ];
    const read = await streamedReply(inParts(sse(events), 1000), () => undefined);
    expect(read).toMatchObject({
      stop_reason: 'max_tokens',
      container: null,
      content: [],
      usage: { input_tokens: 40, cache_read_input_tokens: 7, output_tokens: 12 },
    });
  });

  it.each([
    [
      'an error event',
      [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
      'the model stream sent an error: overloaded_error: Overloaded',
    ],
    ['no message_stop', [], 'the model stream ended without message_stop'],
    [
      'a delta for a block that never started',
      [{ type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'x' } }],
      'the model stream sent a delta for block 3, which never started',
    ],
    [
      'a block without an index',
      [{ type: 'content_block_start', content_block: { type: 'text', text: '' } }],
      'the model stream sent a block event without a valid index',
    ],
    [
      'a block index no Message reaches',
      [{ type: 'content_block_start', index: 1e9, content_block: { type: 'text', text: '' } }],
      'the model stream sent a block event without a valid index',
    ],
    [
      'tool input that does not parse',
      [
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
        },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
        { type: 'content_block_stop', index: 0 },
      ],
      'the model stream sent the input of \'f\' as JSON that does not parse: {"a":',
    ],
    [
      'a tool_use without its id',
      [
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', name: 'client_fn', input: {} } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_stop' },
      ],
      "the reply's a tool_use block has no string id or name",
    ],
  ])('%s throws, naming the problem', async (_name, events, error) => {
    const start = {
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: {} },
    };
    await expect(streamedReply(inParts(sse([start, ...events]), 1000), () => undefined)).rejects.toThrow(error);
  });

  it('throws on an event that is not JSON, and on content before message_start', async () => {
    await expect(
      streamedReply(inParts('event: message_start\ndata: {"type":\n\n', 100), () => undefined),
    ).rejects.toThrow('the model stream sent a malformed event: {"type":');
    await expect(
      streamedReply(
        inParts(sse([{ type: 'content_block_start', index: 0, content_block: { type: 'text' } }]), 100),
        () => undefined,
      ),
    ).rejects.toThrow('the model stream sent content before message_start');
  });

  it("holds at most maxBytes of the blocks, however long the stream runs: each event's framing is not kept", async () => {
    const start = {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    };
    const text = (delta: string) => ({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: delta },
    });
    const events = (extra: string) =>
      sse([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        ...Array.from({ length: 1000 }, () => text('m'.repeat(32))),
        text(extra),
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
        { type: 'message_stop' },
      ]);
    const read = await streamedReply(inParts(events(''), 4096), () => undefined, new HeldBytes(32 * 1000));
    expect(read.content).toEqual([{ type: 'text', text: 'm'.repeat(32 * 1000) }]);
    await expect(streamedReply(inParts(events('!'), 4096), () => undefined, new HeldBytes(32 * 1000))).rejects.toThrow(
      'longer than maxReplyBytes = 32000',
    );
  });
});
