import type { ModelServer, RecordedRequest, ScriptStep } from '../fixtures/model-server';
import { startModelServer } from '../fixtures/model-server';
import { startGeminiServer } from '../fixtures/gemini-server';
import { startMessagesServer } from '../fixtures/messages-server';
import { startResponsesServer } from '../fixtures/responses-server';
import { answerAsks } from '../fixtures/ipc';
import { CALLS_PER_TURN, TURNS, allEchoTexts, echoText, loopIdOfPrompt, textOf } from './lib/script';

/**
 * The scripted upstream, in its own process: plays the 4-turn script and counts each loop's requests, on chat
 * completions and (for `--wires`) on OpenAI Responses, Anthropic Messages and Gemini, in each wire's recorded shapes.
 */
export interface LoopRecord {
  requests: number;
  echoOk: boolean;
}

let latencyMs = 0;
let server: ModelServer | undefined;
/** the other wires' servers, whose records `take` empties */
const wireServers: { requests: unknown[]; replies?: unknown[] }[] = [];
const loops = new Map<string, LoopRecord>();

/**
 * Each request's loop, counted; the servers' own records of every request (and reply) dropped as chat's are in
 * `play`: kept until `take`, the other wires' upstreams had more to collect than chat's (issue 39).
 */
function recordOf(prompt: string): { id: string; record: LoopRecord } {
  for (const wire of wireServers) [wire.requests, wire.replies ?? []].forEach((records) => records.splice(0));
  const id = loopIdOfPrompt(prompt) ?? '?';
  const record = loops.get(id) ?? { requests: 0, echoOk: false };
  record.requests++;
  loops.set(id, record);
  return { id, record };
}

/** Turn `turn`'s step of loop `id` on any wire: the echo calls, or (turn 4) the text listing the echoes in `toolText`. */
function stepOf(id: string, record: LoopRecord, turn: number, toolText: () => string) {
  if (turn < TURNS)
    return {
      calls: Array.from({ length: CALLS_PER_TURN }, (_, call) => ({
        name: 'echo',
        arguments: { text: echoText(id, turn, call) },
      })),
    };
  const seen = toolText();
  const found = allEchoTexts(id).filter((text) => seen.includes(text));
  record.echoOk = found.length === allEchoTexts(id).length;
  return { text: `loop ${id} done: ${found.join(' ')}` };
}

function play(body: RecordedRequest['body']): ScriptStep {
  server?.requests.splice(0);
  const { id, record } = recordOf(textOf(body.messages.find((m) => m.role === 'user')?.content));
  const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
  const step = stepOf(id, record, turn, () =>
    body.messages
      .filter((m) => m.role === 'tool')
      .map((m) => textOf(m.content))
      .join('\n'),
  );
  return { delayMs: latencyMs, ...(step.calls ? { toolCalls: step.calls } : { content: step.text }) };
}

type Item = Record<string, unknown>;
const startResponses = () =>
  startResponsesServer((request) => {
    const input =
      typeof request.body.input === 'string' ? [{ role: 'user', content: request.body.input }] : request.body.input;
    const { id, record } = recordOf(textOf(input.find((item: Item) => item.role === 'user')?.content));
    const step = stepOf(id, record, request.turn + 1, () =>
      input
        .filter((item: Item) => item.type === 'function_call_output')
        .map((item: Item) => textOf(item.output))
        .join('\n'),
    );
    return { delayMs: latencyMs, ...step };
  });

const startMessages = () =>
  startMessagesServer((body) => {
    const { id, record } = recordOf(textOf(body.messages.find((m) => m.role === 'user')?.content));
    const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
    const results = () =>
      body.messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((block: Item) => block?.type === 'tool_result');
    const step = stepOf(id, record, turn, () =>
      results()
        .map((block: Item) => textOf(block.content))
        .join('\n'),
    );
    return {
      delayMs: latencyMs,
      text: step.text,
      toolUses: step.calls?.map((call) => ({ name: call.name, input: call.arguments })),
    };
  });

const startGemini = () =>
  startGeminiServer((body) => {
    const parts = (role: string) => body.contents.filter((c) => c.role === role).flatMap((c) => c.parts);
    const { id, record } = recordOf(textOf(parts('user').find((part) => typeof part.text === 'string')?.text));
    const step = stepOf(id, record, body.contents.filter((c) => c.role === 'model').length + 1, () =>
      parts('user')
        .flatMap((part) =>
          part.functionResponse ? [String(((part.functionResponse as Item).response as Item)?.output ?? '')] : [],
        )
        .join('\n'),
    );
    return {
      delayMs: latencyMs,
      text: step.text,
      calls: step.calls?.map(({ name, arguments: args }) => ({ name, args })),
    };
  });

answerAsks({
  latency: (ms) => void (latencyMs = Number(ms)),
  cpu: () => process.cpuUsage(),
  take: () => {
    const taken = Object.fromEntries(loops);
    loops.clear();
    for (const wire of wireServers) [wire.requests, wire.replies ?? []].forEach((records) => records.splice(0));
    return taken;
  },
});

Promise.all([startModelServer(play), startResponses(), startMessages(), startGemini()]).then(
  ([chat, responses, messages, gemini]) => {
    server = chat;
    wireServers.push(responses, messages, gemini);
    process.send?.({
      type: 'ready',
      origin: chat.url.replace(/\/v1$/, ''),
      responses: responses.url.replace(/\/v1$/, ''),
      messages: messages.url,
      gemini: gemini.url,
    });
  },
);
