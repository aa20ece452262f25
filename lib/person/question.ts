import type { ReplayLog } from '../code-mode/replay-log';

/** One question of a tool's, as the person is asked it: the arguments of the call to the client's input tool. */
export type Question =
  | { tool: string; message: string; mode: 'form'; requestedSchema: Record<string, unknown> }
  | { tool: string; message: string; mode: 'url'; url: string };

/** A tool that asked the person (MCP `input_required`): its questions by the server's keys, and what goes back. */
export interface AskedInput {
  /** the call's arguments, as it ran: it runs again with them and the answers */
  arguments: Record<string, unknown>;
  questions: Record<string, Question>;
  requestState?: string;
  /** the MCP task that asked: the answers go to its `tasks/update` */
  taskId?: string;
  /** answers the Trellis gave itself (roots), sent back with the person's */
  answered: Record<string, unknown>;
  /** which question this is of the call's (1 for the first), bounded by `input.maxRounds` */
  round: number;
  /** a nested call of code mode's asked: its program's log, to resume it with the answers */
  program?: ReplayLog;
}

/** A call waiting for the person's input. */
export interface PendingInput extends AskedInput {
  callId: string;
  tool: string;
}
