import type { Request } from 'express';
import { AnswerIds } from '../../lib/hand-back/answer-ids';
import type { ActiveBinding } from '../../lib/loop/context';
import { Continuations } from '../../lib/hand-back/continuation';
import { restoreEarlierWork } from '../../lib/hand-back/restored-work';
import { tokenSecret } from '../../lib/shared/signed-token';
import type { ChatMessage } from '../../lib/types';
import { carryOn } from '../../lib/wire/chat/continuation';
import { wireFor } from '../../lib/wire/wires';
import { memoryLogger } from '../helpers/memory-logger';

const continuations = new Continuations(tokenSecret('a gateway secret that is long enough for restoring'), 3600);
const keys = { continuations, answerIds: new AnswerIds() };
const chat = wireFor('/v1/chat/completions')!;
const binding = { name: 'notes' } as ActiveBinding;
const req = () => ({ headers: {}, ip: '127.0.0.1' }) as Request;

const own: ChatMessage[] = [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 's1', type: 'function', function: { name: 'notes_open', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 's1', content: 'note ids: welcome' },
];
const [handed] = carryOn(
  { continuations, req: req(), binding: 'notes', succeeded: new Set(['notes_open']), loaded: [] },
  [{ id: 'loc1', type: 'function' as const, function: { name: 'get_location', arguments: '{}' } }],
  own,
);
const followUp = (id: string) => ({
  model: 'agent-1',
  messages: [
    { role: 'user', content: 'what should I buy here?' },
    { role: 'assistant', content: null, tool_calls: [{ ...handed, id }] },
    { role: 'tool', tool_call_id: id, content: 'Berlin' },
  ],
});

describe('restoreEarlierWork', () => {
  it("puts the loop's earlier work back into the request, with the tools that ran well", () => {
    const { logger, lines } = memoryLogger('warn');
    const request = req();
    const { request: restored, earlier } = restoreEarlierWork(
      request,
      chat,
      followUp(handed.id),
      binding,
      keys,
      logger,
    );
    expect((restored.messages as ChatMessage[]).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(request.body).toBe(restored);
    expect(earlier.succeeded).toEqual(['notes_open']);
    expect(lines).toEqual([]);
  });

  it('leaves a body without a token as it is, and warns of a token that does not verify', () => {
    const { logger, lines } = memoryLogger('warn');
    const plain = { model: 'agent-1', messages: [{ role: 'user', content: 'hi' }] };
    expect(restoreEarlierWork(req(), chat, plain, binding, keys, logger).request).toBe(plain);
    const at = handed.id.length - 3;
    const forged = `${handed.id.slice(0, at)}${handed.id[at] === 'A' ? 'B' : 'A'}${handed.id.slice(at + 1)}`;
    restoreEarlierWork(req(), chat, followUp(forged), binding, keys, logger);
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'agent-loop ignored a continuation that does not verify',
        binding: 'notes',
        wire: chat.name,
        forged: 1,
      }),
    ]);
  });
});
