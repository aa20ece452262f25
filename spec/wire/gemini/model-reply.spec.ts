import type { Request } from 'express';
import { geminiWire } from '../../../lib/wire/gemini/gemini';
import { wellFormedReply } from '../../../lib/wire/gemini/model-reply';
import { loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', parts: [{ text: 'hi' }] };
const JSON_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';
const reqOf = (path: string) => ({ path, query: {} }) as unknown as Request;

describe("the Gemini model's reply", () => {
  it.each([
    [{ promptFeedback: { blockReason: 'SAFETY' } }, 'the prompt was blocked: SAFETY'],
    [{ candidates: [] }, 'the reply is not a GenerateContentResponse'],
    [{ candidates: [{ content: { parts: {} } }] }, "the reply's candidate content has no list of parts"],
    [{ candidates: [{ content: { parts: [7] } }] }, "the reply's a part is not an object: 7"],
  ])('refuses %j', (reply, message) => {
    expect(() => wellFormedReply(reply)).toThrow(message);
  });

  it('reads a candidate stopped without content as no text and no call', () => {
    const { reader } = geminiWire.open({ contents: [user] }, loopSetup([]), reqOf(JSON_PATH));
    expect(reader.json({ candidates: [{ content: 'ab' }] }).output).toEqual({ role: 'model', parts: [] });
    expect(reader.json({ candidates: [{ finishReason: 'SAFETY' }] })).toMatchObject({
      text: '',
      calls: [],
      stop: 'SAFETY',
    });
  });
});
