import { historyIn } from '../kit/history';
import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { withInput } from '../../loop/arguments';
import { isObject } from '../../shared/fields';
import type { TextSink } from '../../loop/reply';
import { streamedTurn } from '../../loop/turn-stream';
import { succeededIn } from '../../trellis/hierarchy';
import { settleApprovals } from './approval';
import { restoreWork } from './continuation';
import { GeminiConversation, historyOf } from './conversation';
import { wellFormedReply } from './model-reply';
import { JsonReply, StreamReply, type Counted } from './reply';
import {
  asksForSse,
  clientToolsOf,
  declaredNames,
  GENERATE,
  geminiFunction,
  isGeminiRequest,
  isStreamPath,
  modelInPath,
  partsOf,
  STREAM_GENERATE,
  withoutFunctions,
  type GeminiRequest,
} from './request';
import { answerText, streamedReply } from './stream-reader';
import { isCall, type Content, type GenerateContentResponse } from './types';
import { addUsageMetadata, tokenUsage } from './usage';
import type { LoopSetup, ReplyOptions, TurnReader, TurnResult, Wire, WireLoop } from '../../loop/wire';

/** Google's error body: `{ error: { code, message, status } }`. */
export const googleError = (code: number, message: string, status: string): unknown => ({
  error: { code, message, status },
});

/** The canonical status Google's errors name beside each HTTP status the loop answers with. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
};

/**
 * A GenerateContentResponse as the loop reads a turn: its first candidate's content whole, its functionCall parts as
 * calls by their place.
 */
function turnOf(reply: GenerateContentResponse, model: string): TurnResult<Content> {
  const [candidate] = reply.candidates ?? [];
  const content: Content = {
    role: 'model',
    ...(isObject(candidate?.content) ? candidate.content : {}),
    parts: partsOf(candidate?.content),
  };
  return {
    text: content.parts.map(answerText).join(''),
    calls: content.parts.flatMap((part, index) => {
      if (!isCall(part)) return [];
      const args = part.functionCall.args ?? {};
      const { id, name } = part.functionCall;
      return [withInput({ id: typeof id === 'string' ? id : '', name, arguments: JSON.stringify(args), index }, args)];
    }),
    output: content,
    usage: tokenUsage(reply.usageMetadata),
    // the client's answer repeats it as its finishReason, an enum string: a reply's number or object is none
    stop: typeof candidate?.finishReason === 'string' ? candidate.finishReason : null,
    id: typeof reply.responseId === 'string' ? reply.responseId : '',
    model: typeof reply.modelVersion === 'string' ? reply.modelVersion : model,
    reply,
  };
}

/**
 * What every turn asks the model: the client's request (`systemInstruction`, `generationConfig`, `toolConfig`, ...
 * as sent) with the loop's functions in a `functionDeclarations` tool before the client's own tools.
 */
function turnFields(body: GeminiRequest, own: Record<string, unknown>[], theirs: Record<string, unknown>[]) {
  const { tools: _replaced, ...rest } = body;
  const tools = [...own, ...theirs];
  return tools.length > 0 ? { ...rest, tools } : rest;
}

/**
 * Google Gemini's generateContent (`.../models/{model}:generateContent`, `:streamGenerateContent?alt=sse`), what
 * `@google/genai` speaks.
 */
export const geminiWire: Wire<Content, 'gemini'> = {
  name: 'gemini',
  routes: [GENERATE, STREAM_GENERATE],
  accepts: isGeminiRequest,
  modelOf: (_body, req) => modelInPath(req.path),
  upstreamHeaders: ['x-goog-api-key', 'x-goog-user-project'],
  apiKey: { header: 'x-goog-api-key' },
  rateLimited: (message) => googleError(429, message, GOOGLE_STATUS[429]),
  error: (status, message) => googleError(status, message, GOOGLE_STATUS[status] ?? 'INTERNAL'),
  refusal(req) {
    if (!isStreamPath(req.path) || asksForSse(req)) return undefined;
    return googleError(
      400,
      'agent-loop streams :streamGenerateContent as server-sent events only: add ?alt=sse to the URL (the @google/genai SDK does), or call :generateContent for one JSON response.',
      'INVALID_ARGUMENT',
    );
  },
  ...historyIn('contents', restoreWork, settleApprovals),
  succeededIn: (items) => succeededIn(historyOf(items as Content[])),
  open(request, setup: LoopSetup, req?: Request): WireLoop<Content> {
    const body = request as GeminiRequest;
    const path = req?.path ?? '';
    const model = modelInPath(path) ?? '';
    const streams = isStreamPath(path);
    const own = setup.tools.length > 0 ? [{ functionDeclarations: setup.tools.map(geminiFunction) }] : [];
    const offered = new Set(setup.tools.map((tool) => tool.name));
    const declared = clientToolsOf(body.tools);
    const asking = [setup.approvalTool, ...(setup.inputTool ? [setup.inputTool] : [])];
    const theirs = withoutFunctions(declared, (name) => offered.has(name) || asking.includes(name));
    const counted: Counted = {};
    const read = (reply: GenerateContentResponse) => {
      counted.usage = addUsageMetadata(counted.usage, reply.usageMetadata);
      return turnOf(reply, model);
    };
    const reader: TurnReader<Content> = {
      json: (reply) => read(wellFormedReply(reply)),
      stream: async (upstream: Readable, onText: TextSink, maxBytes: number) =>
        read(await streamedTurn(upstream, onText, maxBytes, streamedReply)),
    };
    const identity = { responseId: `loop_${setup.loopId}`, model };
    return {
      conversation: new GeminiConversation(
        body.contents,
        turnFields(body, own, theirs),
        streams,
        setup,
        setup.handBacks,
        asking,
      ),
      reader,
      clientTools: new Set(declaredNames(theirs)),
      approvalTool: declaredNames(declared).includes(setup.approvalTool) ? setup.approvalTool : undefined,
      inputTool: setup.inputTool && declaredNames(declared).includes(setup.inputTool) ? setup.inputTool : undefined,
      reply(res: Response, options: ReplyOptions) {
        if (!streams) return new JsonReply(res, identity, counted, options.judged);
        return new StreamReply(res, identity, counted, {
          keepAliveSec: options.keepAliveSec,
          signal: options.signal,
        });
      },
    };
  },
};
