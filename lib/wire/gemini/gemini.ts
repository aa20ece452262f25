import { historyIn } from '../kit/history';
import type { Request, Response } from 'express';
import { succeededIn } from '../../trellis/hierarchy';
import { settleApprovals } from './approval';
import { restoreWork } from './continuation';
import { GeminiConversation, historyOf } from './conversation';
import { googleError } from './error';
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
  STREAM_GENERATE,
  turnFields,
  withoutFunctions,
  type GeminiRequest,
} from './request';
import { geminiReader } from './reader';
import type { Content } from './types';
import type { LoopSetup, ReplyOptions, Wire, WireLoop } from '../../loop/wire';

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
  rateLimited: (message) => googleError(429, message),
  error: (status, message) => googleError(status, message),
  refusal(req) {
    if (!isStreamPath(req.path) || asksForSse(req)) return undefined;
    return googleError(
      400,
      'agent-loop streams :streamGenerateContent as server-sent events only: add ?alt=sse to the URL ' +
        '(the @google/genai SDK does), or call :generateContent for one JSON response.',
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
      reader: geminiReader(model, counted),
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
