import type { Client } from '@modelcontextprotocol/client';
import { askedDuringCall } from '../../lib/trellis/mcp-asked-during-call';

const UNCLEAR = 'cannot tell which call asks';
const params = { message: 'Which account?', requestedSchema: { type: 'object', properties: {} } };
const session = () => ({}) as Client;
/** lets the promise chains the timers released run (fake timers fake the other ways to wait) */
const settled = async () => {
  for (let i = 0; i < 10; i++) await undefined;
};
const stateOf = (result: unknown) => (result as { requestState: string }).requestState;

/** a call whose server asks once and answers with what the person said */
function askingCall(asked: ReturnType<typeof askedDuringCall>, client: Client) {
  let seen: AbortSignal | undefined;
  const answers: unknown[] = [];
  const start = async (signal: AbortSignal) => {
    seen = signal;
    await undefined; // the server's question comes after the call went out
    const answer = await asked.elicit(client, params);
    answers.push(answer);
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  };
  return { start, answers, signal: () => seen! };
}

describe('askedDuringCall: a 2025 server asks the person while its call waits', () => {
  afterEach(() => jest.useRealTimers());

  it('hands the question back as input_required, and the answer resumes the same call', async () => {
    const asked = askedDuringCall(UNCLEAR);
    const client = session();
    const { start } = askingCall(asked, client);
    const signal = new AbortController().signal;
    const first = await asked.call(client, 'pay', start, { signal });
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { elicitation: { method: 'elicitation/create', params } },
    });
    const input = {
      inputResponses: { elicitation: { action: 'accept', content: { a: 1 } } },
      requestState: stateOf(first),
    };
    expect(await asked.call(client, 'pay', start, { signal, input })).toEqual({
      content: [{ type: 'text', text: '{"action":"accept","content":{"a":1}}' }],
    });
    // answered once: the same answer again finds no call waiting
    expect(await asked.call(client, 'pay', start, { signal, input })).toMatchObject({ isError: true });
  });

  it('a question not answered within its ttl is cancelled at the server, and a late answer reads as an error', async () => {
    jest.useFakeTimers();
    const asked = askedDuringCall(UNCLEAR);
    const client = session();
    const { start, answers } = askingCall(asked, client);
    const signal = new AbortController().signal;
    const first = await asked.call(client, 'pay', start, { signal, ttlSec: 5 });
    jest.advanceTimersByTime(4999);
    await settled();
    expect(answers).toEqual([]);
    jest.advanceTimersByTime(1);
    await settled();
    expect(answers).toEqual([{ action: 'cancel' }]);
    const input = { inputResponses: { elicitation: { action: 'accept' } }, requestState: stateOf(first) };
    expect(await asked.call(client, 'pay', start, { signal, input })).toEqual({
      content: [
        {
          type: 'text',
          text: "'pay' asked during its call, and that call is no longer waiting for the answer (it expired or ran on another replica)",
        },
      ],
      isError: true,
    });
  });

  it('an answer for another tool, or with no answer to the question, is no answer to this call', async () => {
    const asked = askedDuringCall(UNCLEAR);
    const client = session();
    const { start } = askingCall(asked, client);
    const signal = new AbortController().signal;
    const first = await asked.call(client, 'pay', start, { signal });
    const input = { inputResponses: {}, requestState: stateOf(first) };
    expect(await asked.call(client, 'refund', start, { signal, input })).toMatchObject({ isError: true });
    expect(await asked.call(client, 'pay', start, { signal, input })).toEqual({
      content: [{ type: 'text', text: '{"action":"cancel"}' }],
    });
  });

  it('a question with no call, or several, in flight on the session is refused', async () => {
    const asked = askedDuringCall(UNCLEAR);
    await expect(asked.elicit(session(), params)).rejects.toThrow(UNCLEAR);
  });

  it("the caller's signal aborts the call while it is awaited", async () => {
    const asked = askedDuringCall(UNCLEAR);
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    const running = asked.call(
      session(),
      'slow',
      (signal) =>
        new Promise((_resolve, reject) => {
          seen = signal;
          signal.addEventListener('abort', () => reject(signal.reason as Error));
        }),
      { signal: caller.signal },
    );
    caller.abort(new Error('client gone'));
    await expect(running).rejects.toThrow('client gone');
    expect(seen!.aborted).toBe(true);
  });
});
