import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Continuations, MAX_CONTINUATION_CHARS } from '../../../lib/hand-back/continuation';
import { carryOn, restoreWork } from '../../../lib/wire/messages/continuation';
import type { MessageParam } from '../../../lib/wire/messages/request';
import type { WireCall } from '../../../lib/loop/wire';

const sealer = new Continuations(randomBytes(32), 60);
const req = (apiKey = 'sk-ant-1') => ({ headers: { 'x-api-key': apiKey } }) as unknown as IncomingMessage;
const continuations = {
  carry: (r: IncomingMessage, binding: string, own: MessageParam[], last: MessageParam, calls: WireCall[]) =>
    carryOn(
      { continuations: sealer, req: r, binding, succeeded: new Set(['notes_open']), loaded: [] },
      own,
      last,
      calls,
    ),
  restore: (r: IncomingMessage, binding: string, messages: MessageParam[]) =>
    restoreWork({ continuations: sealer, req: r, binding }, messages),
};

const own: MessageParam[] = [
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'open it', signature: 'Er1' },
      { type: 'tool_use', id: 'toolu_own', name: 'notes_open', input: {} },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_own', content: 'ids: a, b' }] },
];
const last: MessageParam = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'ask where', signature: 'Er2' },
    { type: 'text', text: 'Where?' },
    { type: 'tool_use', id: 'toolu_loc', name: 'get_location', input: {} },
  ],
};
const calls = [{ id: 'toolu_loc', name: 'get_location', arguments: '{}', index: 2 }];

/** The client's follow-up as an SDK builds it: what it was shown, then its own tool's result. */
function followUp(id: string): MessageParam[] {
  return [
    { role: 'user', content: 'what here?' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'open it', signature: 'Er1' },
        { type: 'thinking', thinking: 'ask where', signature: 'Er2' },
        { type: 'text', text: 'Where?' },
        { type: 'tool_use', id, name: 'get_location', input: {} },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'Berlin' }] },
  ];
}

describe('Messages continuation: the loop’s work carried through a hand-back', () => {
  it('restores the loop’s turns and the handed-back message as the model wrote it, every id the model’s own', () => {
    const [carried] = continuations.carry(req(), 'notes', own, last, calls);
    expect(carried.id).toMatch(/^toolu_loc\.al1\./);
    const restored = continuations.restore(req(), 'notes', followUp(carried.id));
    expect(restored).toEqual({
      messages: [
        { role: 'user', content: 'what here?' },
        ...own,
        last,
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_loc', content: 'Berlin' }] },
      ],
      succeeded: ['notes_open'],
      forged: 0,
      ignored: 0,
      loaded: [],
    });
  });

  it.each([
    ['another binding', req(), 'other'],
    ['another client', req('sk-ant-2'), 'notes'],
  ])('does not open for %s: the ids are cut back, the client’s message stays', (_name, follower, binding) => {
    const [carried] = continuations.carry(req(), 'notes', own, last, calls);
    const restored = continuations.restore(follower, binding, followUp(carried.id));
    expect(restored?.forged).toBe(1);
    expect(restored?.messages).toEqual(followUp('toolu_loc'));
  });

  it('opens for the same key sent as a bearer token: one client, however it sends its key', () => {
    const [carried] = continuations.carry(req(), 'notes', own, last, calls);
    const asBearer = { headers: { authorization: 'Bearer sk-ant-1' } } as unknown as IncomingMessage;
    expect(continuations.restore(asBearer, 'notes', followUp(carried.id))).toMatchObject({ forged: 0 });
  });

  it('carries nothing when the loop did nothing before (the client’s copy is the model’s message)', () => {
    expect(continuations.carry(req(), 'notes', [], last, calls)).toBe(calls);
    expect(continuations.restore(req(), 'notes', followUp('toolu_loc'))).toBeUndefined();
  });

  it('elides the oldest results until the token fits, and carries nothing when nothing fits', () => {
    const big = (n: number): MessageParam[] => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'notes_read', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: randomBytes(6000).toString('base64') }],
      },
    ];
    const [carried] = continuations.carry(req(), 'notes', [...big(1), ...big(2)], last, calls);
    expect(carried.id.length).toBeLessThanOrEqual('toolu_loc.al1.'.length + MAX_CONTINUATION_CHARS);
    const restored = continuations.restore(req(), 'notes', followUp(carried.id))!;
    const results = restored.messages
      .filter((m) => m.role === 'user' && Array.isArray(m.content))
      .map((m) => (m.content as { content: string }[])[0].content);
    expect(results[0]).toBe("[earlier result of 'notes_read' elided: 8000 bytes]");
    expect(results[1]).toHaveLength(8000);
    const huge: MessageParam = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: randomBytes(20000).toString('base64'), signature: 'x' },
        ...(last.content as object[]),
      ],
    };
    expect(continuations.carry(req(), 'notes', own, huge, calls)).toBe(calls);
  });
});
