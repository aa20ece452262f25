import { chatWire } from './chat/chat';
import { chatReader } from './chat/reader';
import { geminiWire } from './gemini/gemini';
import { messagesWire } from './messages/messages';
import { responsesWire } from './responses/responses';
import { frontDoorAt, type JudgeWire, type Wire } from '../loop/wire';

/** Every front door the loop serves, by the end of its path: a wire is its folder and its line here. */
export const WIRES = [chatWire, responsesWire, messagesWire, geminiWire] as const satisfies readonly Wire[];

/** The front doors by name: OpenAI chat completions, OpenAI Responses, Anthropic Messages, Google Gemini. */
export type WireName = (typeof WIRES)[number]['name'];

/** The judge's model speaks chat completions. */
export const JUDGE_WIRE: JudgeWire = { path: chatWire.path, reader: chatReader };

export function wireFor(path: string): Wire | undefined {
  return WIRES.find((wire) => frontDoorAt(wire, path) >= 0);
}
