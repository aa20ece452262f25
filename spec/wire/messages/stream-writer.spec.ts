import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import express, { type Response } from 'express';
import { messageOf, Signer } from '../../../fixtures/messages-server';
import { messageEvents } from '../../../lib/testing/messages';
import { streamedReply } from '../../../lib/wire/messages/stream-reader';
import { StreamWriter } from '../../../lib/wire/messages/stream-writer';
import { addMessagesUsage } from '../../../lib/wire/messages/usage';

const signer = new Signer();
const sse = (events: Record<string, unknown>[]) =>
  events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/** Serves `write(writer)` at POST /v1/messages: the writer on a real Express response, read by real clients. */
async function serving(write: (writer: StreamWriter, res: Response) => Promise<void>) {
  const controller = new AbortController();
  const app = express().post('/v1/messages', async (_req, res) => {
    const writer = new StreamWriter(
      res,
      { id: 'msg_loop1', model: 'claude-test' },
      { keepAliveSec: 30, signal: controller.signal },
    );
    try {
      await write(writer, res);
    } finally {
      writer.dispose();
    }
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const raw = async () => (await fetch(`${url}/v1/messages`, { method: 'POST' })).text();
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  return { url, raw, close, client: new Anthropic({ baseURL: url, apiKey: 'k', maxRetries: 0 }) };
}

const turn1 = messageOf(
  {
    thinking: 'Look it up first.',
    text: 'Let me look.',
    toolUses: [{ id: 'toolu_01L', name: 'lookup', input: { q: 'x' } }],
    usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 50 },
  },
  'claude-test',
  signer,
);
const turn2 = messageOf(
  {
    thinking: 'Now answer.',
    text: 'The answer is 42.',
    usage: { input_tokens: 140, output_tokens: 9, cache_read_input_tokens: 90, cache_creation_input_tokens: 4 },
  },
  'claude-test',
  signer,
);

/** Two turns read from upstream streams into one client stream, then a handed-back call, as a loop does. */
async function twoTurnsAndHandBack(writer: StreamWriter): Promise<void> {
  let usage;
  for (const turn of [turn1, turn2]) {
    const read = await streamedReply(once(sse(messageEvents(turn))), (event) => writer.forward(event));
    usage = addMessagesUsage(usage, read.usage);
    writer.toolsRunning();
    writer.toolProgress();
  }
  writer.block({ type: 'tool_use', id: 'toolu_01Client', name: 'client_tool', input: { path: '/tmp/a' } });
  writer.finish('tool_use', usage);
}

describe('StreamWriter: one Messages stream for the whole loop', () => {
  it("reads, in the official SDK, as ONE Message: every turn's blocks, indexes running on, the hand-back last, usage summed", async () => {
    const { client, close } = await serving(twoTurnsAndHandBack);
    try {
      const stream = client.messages.stream({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const texts: string[] = [];
      stream.on('text', (delta) => texts.push(delta));
      const message = await stream.finalMessage();
      expect(message.id).toBe('msg_loop1');
      expect(message.content).toEqual([
        { type: 'thinking', thinking: 'Look it up first.', signature: signer.sign('Look it up first.') },
        { type: 'text', text: 'Let me look.' },
        { type: 'thinking', thinking: 'Now answer.', signature: signer.sign('Now answer.') },
        { type: 'text', text: 'The answer is 42.' },
        { type: 'tool_use', id: 'toolu_01Client', name: 'client_tool', input: { path: '/tmp/a' } },
      ]);
      expect(texts.join('')).toBe('Let me look.The answer is 42.');
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject({
        input_tokens: 240,
        output_tokens: 29,
        cache_read_input_tokens: 140,
        cache_creation_input_tokens: 4,
      });
    } finally {
      close();
    }
  });

  it('writes each block event as the event it forwards, renumbered: a delta the same bytes as the rest', async () => {
    const delta = { type: 'text_delta', text: 'Say "hi"\n€' };
    const { raw, close } = await serving(async (writer) => {
      writer.block({ type: 'text', text: 'note' });
      writer.forward({ type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } });
      writer.forward({ type: 'content_block_delta', index: 3, delta });
      writer.forward({ type: 'content_block_stop', index: 3 });
    });
    try {
      const frames = (await raw()).split('\n\n').slice(4, 7);
      expect(frames).toEqual(
        [
          { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 1, delta },
          { type: 'content_block_stop', index: 1 },
        ].map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}`),
      );
    } finally {
      close();
    }
  });

  it('writes one message_start, one message_delta and one message_stop, and a ping while tools run', async () => {
    const { raw, close } = await serving(twoTurnsAndHandBack);
    try {
      const events = (await raw())
        .split('\n\n')
        .filter(Boolean)
        .map((frame) => frame.split('\n')[0].replace('event: ', ''));
      expect(events.filter((type) => type === 'message_start')).toHaveLength(1);
      expect(events.filter((type) => type === 'message_delta')).toHaveLength(1);
      expect(events.at(-1)).toBe('message_stop');
      const starts = events.flatMap((type, i) => (type === 'content_block_start' ? [i] : []));
      // the tools of turn 1 ran between its blocks and turn 2's
      expect(events.slice(starts[1], starts[2])).toEqual([
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'ping',
      ]);
      expect(events.filter((type) => type === 'content_block_start')).toHaveLength(5);
    } finally {
      close();
    }
  });

  it('closes a block a turn left open before the next one, and ends well-formed when disposed mid-loop', async () => {
    const { client, close } = await serving(async (writer) => {
      const broken = messageEvents(turn2).slice(0, 6); // message_start, the thinking block's start, ping, deltas: cut off
      await streamedReply(once(sse(broken)), (event) => writer.forward(event)).catch(() => undefined);
      writer.block({ type: 'text', text: '[agent-loop] Stopped before a final answer.' });
    });
    try {
      const message = await client.messages
        .stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage();
      expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
      expect(message.content[1]).toEqual({ type: 'text', text: '[agent-loop] Stopped before a final answer.' });
      expect(message.stop_reason).toBe('end_turn');
    } finally {
      close();
    }
  });

  it('writes nothing until the first byte: a loop that produced nothing can still fall through', async () => {
    const { raw, close } = await serving(async (writer, res) => {
      expect(writer.committed).toBe(false);
      res.status(502).json({ fell: 'through' });
    });
    try {
      expect(await raw()).toBe('{"fell":"through"}');
    } finally {
      close();
    }
  });
});
