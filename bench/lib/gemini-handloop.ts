import type { Request, Response } from 'express';
import { echo, echoDescription, echoSchema } from './echo';
import { sendJson } from './respond';
import { TURNS } from './script';
import { sseData } from './sse';

type Part = Record<string, unknown> & { text?: string; functionCall?: { name: string; args?: { text?: unknown } } };
interface Content {
  role: string;
  parts: Part[];
}
export interface GeminiReply {
  candidates: { content: Content }[];
}

/** How one Gemini turn reaches the model: `path` is the API's own (`/v1beta/models/{model}:generateContent`). */
export interface GeminiTransport {
  complete(path: string, body: object, req: Request): Promise<GeminiReply>;
  /** the raw SSE body of one `:streamGenerateContent?alt=sse` turn */
  stream(path: string, body: object, req: Request): Promise<AsyncIterable<Uint8Array | string>>;
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const tools = [
  { functionDeclarations: [{ name: 'echo', description: echoDescription, parametersJsonSchema: echoSchema }] },
];

/** Each call's functionResponse, in call order: the tool's text as `output`, as the package answers. */
async function runTools(calls: Part[]): Promise<Content> {
  const parts = await Promise.all(
    calls.map(async ({ functionCall: call }) => {
      const output =
        call?.name === 'echo'
          ? await echo(String(call.args?.text))
          : `tool error: unknown tool '${call?.name}', valid: echo`;
      return { functionResponse: { name: call?.name, response: { output } } };
    }),
  );
  return { role: 'user', parts };
}

async function plainLoop(transport: GeminiTransport, model: string, req: Request, res: Response): Promise<void> {
  const contents: Content[] = [...req.body.contents];
  for (let turn = 1; ; turn++) {
    const reply = await transport.complete(`/v1beta/models/${model}:generateContent`, { contents, tools }, req);
    const content = reply.candidates[0].content;
    const calls = content.parts.filter((part) => part.functionCall);
    if (!calls.length || turn >= TURNS) return sendJson(res, 200, reply);
    contents.push(content, await runTools(calls));
  }
}

/** Text chunks go to the client as they come (the upstream's events whole); a turn's parts are kept for the next. */
async function streamedLoop(transport: GeminiTransport, model: string, req: Request, res: Response): Promise<void> {
  const contents: Content[] = [...req.body.contents];
  const path = `/v1beta/models/${model}:streamGenerateContent?alt=sse`;
  for (let turn = 1; ; turn++) {
    const parts: Part[] = [];
    for await (const data of sseData(await transport.stream(path, { contents, tools }, req))) {
      const chunk = (JSON.parse(data) as GeminiReply).candidates?.[0]?.content?.parts ?? [];
      parts.push(...chunk);
      if (!chunk.some((part) => typeof part.text === 'string')) continue;
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${data}\r\n\r\n`);
    }
    const calls = parts.filter((part) => part.functionCall);
    if (!calls.length || turn >= TURNS) return void res.end();
    contents.push({ role: 'model', parts }, await runTools(calls));
  }
}

/** The hand loop on Gemini's generateContent: at most 4 turns, tools run in parallel in-process. */
export function geminiHandLoopHandler(transport: GeminiTransport) {
  return async function geminiHandLoop(req: Request, res: Response): Promise<void> {
    const [, model, method] = ROUTE.exec(req.path) ?? [];
    const loop = method === 'streamGenerateContent' ? streamedLoop : plainLoop;
    await loop(transport, model, req, res).catch((error) => {
      if (res.headersSent) return void res.destroy();
      sendJson(res, 502, { error: { code: 502, message: String(error?.message ?? error), status: 'UNAVAILABLE' } });
    });
  };
}
