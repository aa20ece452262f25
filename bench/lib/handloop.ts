import type { Request, Response } from 'express';
import { echo, echoDescription, echoSchema } from './echo';
import { SseWriter, sendJson } from './respond';
import { TURNS } from './script';
import { sseData } from './sse';

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ChatReply {
  choices: { message: ChatMessage }[];
}

/** How one turn reaches the model: straight to the upstream, or through the app's own front door. */
export interface Transport {
  complete(body: object, req: Request): Promise<ChatReply>;
  /** the raw SSE body of one streamed turn */
  stream(body: object, req: Request): Promise<AsyncIterable<Uint8Array | string>>;
}

const tools = [{ type: 'function', function: { name: 'echo', description: echoDescription, parameters: echoSchema } }];

function runTool(call: ToolCall): string | Promise<string> {
  if (call.function.name !== 'echo') return `tool error: unknown tool '${call.function.name}', valid: echo`;
  try {
    return echo(String(JSON.parse(call.function.arguments || '{}').text));
  } catch (error) {
    return `tool error: bad arguments: ${(error as Error).message}`;
  }
}

async function runTools(calls: ToolCall[]): Promise<ChatMessage[]> {
  return Promise.all(
    calls.map(async (call) => ({ role: 'tool', tool_call_id: call.id, content: await runTool(call) })),
  );
}

async function plainLoop(transport: Transport, req: Request, res: Response): Promise<void> {
  const { model } = req.body;
  const messages: ChatMessage[] = [...req.body.messages];
  for (let turn = 1; ; turn++) {
    const reply = await transport.complete({ model, messages, tools }, req);
    const message = reply.choices[0].message;
    if (!message.tool_calls?.length || turn >= TURNS) return sendJson(res, 200, reply);
    messages.push(message, ...(await runTools(message.tool_calls)));
  }
}

async function streamedLoop(transport: Transport, req: Request, writer: SseWriter): Promise<void> {
  const { model } = req.body;
  const messages: ChatMessage[] = [...req.body.messages];
  for (let turn = 1; ; turn++) {
    const calls: ToolCall[] = [];
    let content = '';
    for await (const data of sseData(await transport.stream({ model, messages, tools, stream: true }, req))) {
      if (data === '[DONE]') continue;
      const delta = JSON.parse(data).choices?.[0]?.delta;
      if (delta?.content) {
        content += delta.content;
        writer.raw(data);
      }
      for (const part of delta?.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
      }
    }
    if (!calls.length || turn >= TURNS) return writer.end();
    messages.push({ role: 'assistant', content: content || null, tool_calls: calls }, ...(await runTools(calls)));
  }
}

/** A minimal hand-written tool loop: at most 4 turns, tools run in parallel in-process. */
export function handLoopHandler(transport: Transport) {
  return async function handLoop(req: Request, res: Response): Promise<void> {
    if (!req.body?.stream) {
      await plainLoop(transport, req, res).catch((error) =>
        sendJson(res, 502, { error: { message: String(error?.message ?? error) } }),
      );
      return;
    }
    const writer = new SseWriter(res, req.body.model);
    await streamedLoop(transport, req, writer).catch((error) => writer.fail(String(error?.message ?? error)));
  };
}
