import { chatWire } from './chat/chat';
import { chatReader } from './chat/reader';
import { messagesWire } from './messages/messages';
import { responsesWire } from './responses/responses';
import type { JudgeWire, Wire } from '../loop/wire';

/** Every front door the loop serves, by the end of its path: a wire is its folder and its line here. */
export const WIRES = [chatWire, responsesWire, messagesWire] as const satisfies readonly Wire[];

/** The front doors by name: OpenAI chat completions, OpenAI Responses, Anthropic Messages. */
export type WireName = (typeof WIRES)[number]['name'];

/** The judge's model speaks chat completions. */
export const JUDGE_WIRE: JudgeWire = { path: chatWire.path, reader: chatReader };

export function wireFor(path: string): Wire | undefined {
  return WIRES.find((wire) => path.endsWith(wire.path));
}
