import type { Request, Response } from 'express';
import { echo, echoDescription, echoSchema } from './echo';
import { sendJson } from './respond';
import { TURNS } from './script';
import { sseData } from './sse';

type Block = Record<string, unknown> & { type: string; id?: string; name?: string; input?: { text?: unknown } };
interface Message {
  role: string;
  content: unknown;
}
export interface MessagesReply {
  content: Block[];
}

/** How one Messages turn reaches the model: JSON, or the raw SSE body of a `stream: true` turn. */
export interface MessagesTransport {
  complete(body: object, req: Request): Promise<MessagesReply>;
  stream(body: object, req: Request): Promise<AsyncIterable<Uint8Array | string>>;
}

const tools = [{ name: 'echo', description: echoDescription, input_schema: echoSchema }];

/** Each tool_use's tool_result, in order: the tool's text as its content. */
async function runTools(uses: Block[]): Promise<Message> {
  const content = await Promise.all(
    uses.map(async (use) => ({
      type: 'tool_result',
      tool_use_id: use.id,
      content:
        use.name === 'echo'
          ? await echo(String(use.input?.text))
          : `tool error: unknown tool '${use.name}', valid: echo`,
    })),
  );
  return { role: 'user', content };
}

async function plainLoop(transport: MessagesTransport, req: Request, res: Response): Promise<void> {
  const { model, max_tokens } = req.body;
  const messages: Message[] = [...req.body.messages];
  for (let turn = 1; ; turn++) {
    const reply = await transport.complete({ model, max_tokens, messages, tools }, req);
    const uses = reply.content.filter((block) => block.type === 'tool_use');
    if (!uses.length || turn >= TURNS) return sendJson(res, 200, reply);
    messages.push({ role: 'assistant', content: reply.content }, await runTools(uses));
  }
}

/** One streamed event folded into the turn's blocks (a tool_use's input from its JSON deltas). */
function fold(blocks: Block[], inputs: string[], event: Record<string, unknown>): void {
  const index = event.index as number;
  if (event.type === 'content_block_start') blocks[index] = { ...(event.content_block as Block) };
  const delta = event.delta as { type?: string; text?: string; partial_json?: string } | undefined;
  if (event.type !== 'content_block_delta' || !delta) return;
  if (delta.type === 'text_delta') blocks[index].text = `${blocks[index].text ?? ''}${delta.text}`;
  if (delta.type === 'input_json_delta') inputs[index] = `${inputs[index] ?? ''}${delta.partial_json}`;
}

/** Text deltas go to the client as they come (the upstream's events whole); a turn's blocks are kept for the next. */
async function streamedLoop(transport: MessagesTransport, req: Request, res: Response): Promise<void> {
  const { model, max_tokens } = req.body;
  const messages: Message[] = [...req.body.messages];
  for (let turn = 1; ; turn++) {
    const [blocks, inputs]: [Block[], string[]] = [[], []];
    for await (const data of sseData(
      await transport.stream({ model, max_tokens, messages, tools, stream: true }, req),
    )) {
      const event = JSON.parse(data) as Record<string, unknown>;
      fold(blocks, inputs, event);
      if (event.type !== 'content_block_delta' || (event.delta as { type?: string }).type !== 'text_delta') continue;
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: content_block_delta\ndata: ${data}\n\n`);
    }
    inputs.forEach((json, index) => (blocks[index].input = JSON.parse(json || '{}')));
    const uses = blocks.filter((block) => block.type === 'tool_use');
    if (!uses.length || turn >= TURNS) return void res.end();
    messages.push({ role: 'assistant', content: blocks }, await runTools(uses));
  }
}

/** The hand loop on Anthropic's Messages: at most 4 turns, tools run in parallel in-process. */
export function messagesHandLoopHandler(transport: MessagesTransport) {
  return async function messagesHandLoop(req: Request, res: Response): Promise<void> {
    await (req.body?.stream ? streamedLoop : plainLoop)(transport, req, res).catch((error) => {
      if (res.headersSent) return void res.destroy();
      sendJson(res, 502, { type: 'error', error: { type: 'api_error', message: String(error?.message ?? error) } });
    });
  };
}

/** The client's Anthropic headers, which every turn carries upstream as the package's turns do. */
export const anthropicHeaders = (req: Request): Record<string, string> => ({
  'anthropic-version': String(req.headers['anthropic-version']),
  'x-api-key': String(req.headers['x-api-key']),
});
