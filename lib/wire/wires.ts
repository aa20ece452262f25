import { chatWire } from './chat/chat';
import { messagesWire } from './messages/messages';
import { responsesWire } from './responses/responses';
import type { Wire } from '../loop/wire';

/** Every front door the loop serves, by the end of its path. */
export const WIRES: readonly Wire[] = [chatWire, responsesWire, messagesWire];

export function wireFor(path: string): Wire | undefined {
  return WIRES.find((wire) => wire.matches(path));
}
