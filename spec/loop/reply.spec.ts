import express from 'express';
import request from 'supertest';
import { addUsage, AnswerText, noteParagraph, setLoopHeaders, textWithNote } from '../../lib/loop/reply';

describe('AnswerText: the answer over all turns, as it grows', () => {
  it('starts each new paragraph after a blank line, forwards exactly what it adds, and skips empty deltas', () => {
    const forwarded: string[] = [];
    const text = new AnswerText((delta) => void forwarded.push(delta));
    text.append('Looking');
    text.append(' it up.');
    text.newParagraph();
    text.append('');
    text.append('Found it.');
    expect(text.value).toBe('Looking it up.\n\nFound it.');
    expect(forwarded).toEqual(['Looking', ' it up.', '\n\nFound it.']);
  });

  it('passes on the sink’s promise: the client is not keeping up', async () => {
    let release = () => {};
    const text = new AnswerText(() => new Promise<void>((resolve) => (release = resolve)));
    const waiting = text.append('a');
    expect(waiting).toBeInstanceOf(Promise);
    release();
    await expect(waiting).resolves.toBeUndefined();
  });
});

describe("the budget's note: a field of the answer, its own paragraph after the text", () => {
  const note = '[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = 1).';

  it('follows the text after a blank line, is all the answer says without text, and is nothing without a note', () => {
    expect(noteParagraph({ stop: 'max_turns', text: 'Partial.', note })).toBe(`\n\n${note}`);
    expect(textWithNote({ stop: 'max_turns', text: 'Partial.', note })).toBe(`Partial.\n\n${note}`);
    expect(textWithNote({ stop: 'deadline', text: '', note })).toBe(note);
    expect(noteParagraph({ stop: 'final', text: 'Done.' })).toBe('');
    expect(textWithNote({ stop: 'final', text: 'Done.' })).toBe('Done.');
  });
});

describe('addUsage and the loop headers', () => {
  it('sums token usage over turns; a turn without usage leaves the total', () => {
    const one = addUsage(undefined, { input: 10, output: 2, total: 12 });
    expect(addUsage(one, { input: 5, output: 1, total: 6 })).toEqual({ input: 15, output: 3, total: 18 });
    expect(addUsage(one, undefined)).toBe(one);
    expect(addUsage(undefined, undefined)).toBeUndefined();
  });

  it.each([
    [false, undefined],
    [true, '2'],
  ])('writes the x-agent-loop-* headers (judged: %s, blocked %s)', async (judged, blocked) => {
    const app = express();
    app.get('/', (_req, res) => {
      setLoopHeaders(res, 'max_turns', { turns: 3, toolCalls: 4, blocked: 2, repeated: 1, elided: 5 }, judged);
      res.end();
    });
    const { headers } = await request(app).get('/');
    expect([
      headers['x-agent-loop-turns'],
      headers['x-agent-loop-tool-calls'],
      headers['x-agent-loop-stop'],
      headers['x-agent-loop-repeated'],
      headers['x-agent-loop-elided'],
      headers['x-agent-loop-blocked'],
    ]).toEqual(['3', '4', 'max_turns', '1', '5', blocked]);
  });
});
