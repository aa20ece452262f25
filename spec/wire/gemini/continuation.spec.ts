import { TAG } from '../../../lib/hand-back/continuation';
import { restoreWork } from '../../../lib/wire/gemini/continuation';
import { loopSetup } from '../../helpers/loop-setup';

describe('Gemini continuations', () => {
  it('leaves contents without a token alone', () => {
    const { handBacks } = loopSetup([]);
    expect(restoreWork(handBacks, [{ role: 'user', parts: [{ text: 'hi' }] }])).toBeUndefined();
  });

  it('cuts a token that does not open back to the id before it, in the call and its answer', () => {
    const { handBacks } = loopSetup([]);
    const id = `call_1${TAG}forged`;
    const restored = restoreWork(handBacks, [
      { role: 'user', parts: [{ text: 'hi' }] },
      {
        role: 'model',
        parts: [{ text: 'Asking.' }, { functionCall: { id, name: 'ask', args: {} }, thoughtSignature: 's' }],
      },
      { role: 'user', parts: [{ functionResponse: { id, name: 'ask', response: { output: 'x' } } }] },
    ]);
    expect(restored).toMatchObject({ forged: 1 });
    expect(restored?.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [{ text: 'Asking.' }, { functionCall: { id: 'call_1', name: 'ask', args: {} }, thoughtSignature: 's' }],
      },
      { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'ask', response: { output: 'x' } } }] },
    ]);
  });
});
