import { chatWire } from './chat/chat';
import { chatReader } from './chat/reader';
import { geminiWire } from './gemini/gemini';
import { messagesWire } from './messages/messages';
import { responsesWire } from './responses/responses';
import { frontDoorAt } from '../loop/front-door';
import type { ErrorFields, JudgeWire, Wire } from '../loop/wire';
import { openAiApi } from './kit/openai-api';

/** Every front door the loop serves, by its route patterns: a wire is its folder and its line here. */
export const WIRES = [chatWire, responsesWire, messagesWire, geminiWire] as const satisfies readonly Wire[];

/** The front doors by name: OpenAI chat completions, OpenAI Responses, Anthropic Messages, Google Gemini. */
export type WireName = (typeof WIRES)[number]['name'];

/** The judge's model speaks chat completions. */
export const JUDGE_WIRE: JudgeWire = { path: chatWire.routes[0].source, reader: chatReader };

/** The wire one of whose routes matches the end of `path` (a request's `req.path`). */
export function wireFor(path: string): Wire | undefined {
  return WIRES.find((wire) => frontDoorAt(wire, path) >= 0);
}

/** An error's body in the error shape of the wire whose front door `path` is; OpenAI's on any other path. */
export const errorBodyFor = (path: string, status: number, message: string, fields?: ErrorFields): unknown =>
  (wireFor(path) ?? openAiApi).error(status, message, fields);
