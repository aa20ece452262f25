import type { IncomingMessage } from 'node:http';
import { Continuations, MAX_WORK_BYTES } from '../../../lib/hand-back/continuation';
import { tokenSecret } from '../../../lib/shared/signed-token';
import type { ChatMessage, ToolCall } from '../../../lib/types';
import { carryOn, restoreWork } from '../../../lib/wire/chat/continuation';

const sealer = new Continuations(tokenSecret('a gateway secret that is long enough for bounds'), 3600);
const continuations = {
  carry: (r: IncomingMessage, binding: string, calls: ToolCall[], own: ChatMessage[], succeeded: string[]) =>
    carryOn({ continuations: sealer, req: r, binding, succeeded: new Set(succeeded), loaded: [] }, calls, own),
  restore: (r: IncomingMessage, binding: string, messages: ChatMessage[]) =>
    restoreWork({ continuations: sealer, req: r, binding }, messages),
};
const req = { headers: { authorization: 'Bearer alice' } } as unknown as IncomingMessage;
const call = (id: string, name = 'notes_read'): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});

/** One genuine hand-back whose work unpacks to about `size` bytes (highly compressible, so its token stays small). */
function handBack(n: number, size: number): ChatMessage {
  const work: ChatMessage[] = [
    { role: 'assistant', tool_calls: [call(`w${n}`)] },
    { role: 'tool', tool_call_id: `w${n}`, content: String(n % 10).repeat(size) },
  ];
  return {
    role: 'assistant',
    content: null,
    tool_calls: continuations.carry(req, 'notes', [call(`c${n}`, 'get_location')], work, []),
  };
}

describe('what a follow-up gets back is bounded by what one loop can have written', () => {
  it('restores the latest hand-backs until MAX_WORK_BYTES, the older ones only get their ids back', () => {
    const messages = Array.from({ length: 8 }, (_, n) => handBack(n, 300_000));
    const restored = continuations.restore(req, 'notes', messages)!;

    const work = restored.messages.filter((m) => m.role === 'tool' || m.tool_calls?.[0].id.startsWith('w'));
    expect(Buffer.byteLength(JSON.stringify(work))).toBeLessThanOrEqual(MAX_WORK_BYTES);
    expect(work.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['w5', 'w6', 'w7']);
    expect(restored.ignored).toBe(5);
    expect(restored.forged).toBe(0);
    expect(
      restored.messages
        .filter((m) => m.role === 'assistant' && m.content === null && m.tool_calls![0].id.startsWith('c'))
        .map((m) => m.tool_calls![0].id),
    ).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
  });

  it('elides a result that would take the record past MAX_WORK_BYTES, however well it compresses', () => {
    const restored = continuations.restore(req, 'notes', [handBack(1, MAX_WORK_BYTES + 1)])!;
    expect(restored.messages[1].content).toBe(`[earlier result of 'notes_read' elided: ${MAX_WORK_BYTES + 1} bytes]`);
  });

  it('leaves messages that carry no token alone', () => {
    expect(continuations.restore(req, 'notes', [{ role: 'assistant', tool_calls: [call('plain')] }])).toBeUndefined();
  });
});

describe('the carried work is what the model wrote', () => {
  it("keeps every field of the loop's assistant messages (DeepSeek refuses a follow-up without reasoning_content)", () => {
    const own: ChatMessage[] = [
      {
        role: 'assistant',
        content: 'Let me look.',
        reasoning_content: 'The notes tool lists ids first.',
        reasoning_details: [{ type: 'reasoning.encrypted', data: 'abc', index: 0 }],
        tool_calls: [call('w1', 'notes_open')],
      },
      { role: 'tool', tool_call_id: 'w1', content: 'ids: groceries' },
    ];
    const handed: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: continuations.carry(req, 'notes', [call('c1', 'get_location')], own, []),
    };
    const { messages } = continuations.restore(req, 'notes', [handed])!;
    expect(messages.slice(0, 2)).toEqual([{ ...own[0], content: null }, own[1]]);
  });
});
