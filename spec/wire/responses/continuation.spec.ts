import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Continuations, TAG } from '../../../lib/hand-back/continuation';
import { tokenSecret } from '../../../lib/shared/signed-token';
import { carryOn, restoreWork } from '../../../lib/wire/responses/continuation';

const handBacks = {
  continuations: new Continuations(tokenSecret('a gateway secret that is long enough for responses'), 3600),
  req: { headers: { authorization: 'Bearer alice' } } as unknown as IncomingMessage,
  binding: 'notes',
  succeeded: new Set(['notes_read']),
  loaded: ['create_pull_request'],
};
const user = { type: 'message', role: 'user', content: 'where am I, and what do my notes say?' };
const location = { id: 'call_loc', name: 'get_location', arguments: '{}', index: 1 };
const own = (output: string) => [
  { type: 'function_call', call_id: 'call_read', name: 'notes_read', arguments: '{}' },
  { type: 'function_call_output', call_id: 'call_read', output },
];

describe("a Responses hand-back carries the loop's items in the client's call_id", () => {
  it('puts the carried items back before the call in the follow-up, every call_id the model’s own again', () => {
    const [carried] = carryOn(handBacks, [location], own('groceries: milk'));
    expect(carried.id.startsWith(`call_loc${TAG}`)).toBe(true);
    const restored = restoreWork(
      handBacks,
      [
        user,
        { type: 'function_call', call_id: carried.id, name: 'get_location', arguments: '{}' },
        { type: 'function_call_output', call_id: carried.id, output: 'Paris' },
      ],
      false,
    );
    expect(restored).toEqual({
      input: [
        user,
        ...own('groceries: milk'),
        { type: 'function_call', call_id: 'call_loc', name: 'get_location', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_loc', output: 'Paris' },
      ],
      succeeded: ['notes_read'],
      forged: 0,
      ignored: 0,
      loaded: ['create_pull_request'],
    });
    expect(restoreWork(handBacks, [user], false)).toBeUndefined();
  });

  it('elides the oldest outputs, with the exact placeholder, until the token fits its bound', () => {
    const big = randomBytes(12_000).toString('hex');
    const [carried] = carryOn(handBacks, [location], own(big));
    const restored = restoreWork(
      handBacks,
      [user, { type: 'function_call', call_id: carried.id, name: 'get_location', arguments: '{}' }],
      false,
    );
    expect(restored?.input.slice(1, 3)).toEqual(own("[earlier result of 'notes_read' elided: 24000 bytes]"));
  });

  it('counts a token of another binding as forged and leaves chained input where it is', () => {
    const [carried] = carryOn(handBacks, [location], own('groceries: milk'));
    const input = [{ type: 'function_call', call_id: carried.id, name: 'get_location', arguments: '{}' }];
    expect(restoreWork({ ...handBacks, binding: 'other' }, input, false)).toEqual({
      input: [{ ...input[0], call_id: 'call_loc' }],
      succeeded: [],
      forged: 1,
      ignored: 0,
      loaded: [],
    });
    expect(restoreWork(handBacks, input, true)?.input).toEqual([{ ...input[0], call_id: 'call_loc' }]);
  });

  it('hands back the calls as they are when there is nothing to carry', () => {
    expect(carryOn(handBacks, [location], [])).toEqual([location]);
  });
});
