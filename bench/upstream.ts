import type { ModelServer, RecordedRequest, ScriptStep } from '../fixtures/model-server';
import { startModelServer } from '../fixtures/model-server';
import { answerAsks } from './lib/ipc';
import { CALLS_PER_TURN, TURNS, allEchoTexts, echoText, loopIdOfPrompt, textOf } from './lib/script';

/** The scripted upstream, in its own process: plays the 4-turn script and counts each loop's requests. */
export interface LoopRecord {
  requests: number;
  echoOk: boolean;
}

let latencyMs = 0;
let server: ModelServer | undefined;
const loops = new Map<string, LoopRecord>();

function play(body: RecordedRequest['body']): ScriptStep {
  server?.requests.splice(0);
  const id = loopIdOfPrompt(textOf(body.messages.find((m) => m.role === 'user')?.content)) ?? '?';
  const record = loops.get(id) ?? { requests: 0, echoOk: false };
  record.requests++;
  loops.set(id, record);
  const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
  if (turn < TURNS) {
    const toolCalls = Array.from({ length: CALLS_PER_TURN }, (_, call) => ({ name: 'echo', arguments: { text: echoText(id, turn, call) } }));
    return { delayMs: latencyMs, toolCalls };
  }
  const toolText = body.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)).join('\n');
  const found = allEchoTexts(id).filter((text) => toolText.includes(text));
  record.echoOk = found.length === allEchoTexts(id).length;
  return { delayMs: latencyMs, content: `loop ${id} done: ${found.join(' ')}` };
}

answerAsks({
  latency: (ms) => void (latencyMs = Number(ms)),
  take: () => {
    const taken = Object.fromEntries(loops);
    loops.clear();
    return taken;
  },
});

startModelServer(play).then((started) => {
  server = started;
  process.send?.({ type: 'ready', origin: started.url.replace(/\/v1$/, '') });
});
