import type { IncomingMessage } from 'node:http';
import { AnswerIds } from '../../lib/hand-back/answer-ids';
import { Continuations } from '../../lib/hand-back/continuation';
import { tokenSecret } from '../../lib/shared/signed-token';
import type { LoopTool } from '../../lib/loop/loop-tool';
import type { LoopSetup } from '../../lib/loop/wire';
import { memoryLogger } from './memory-logger';

/** What a wire gets to open one loop, for specs that open a wire directly: the binding's `tools`, no limits. */
export function loopSetup(tools: LoopTool[], overrides: Partial<LoopSetup> = {}): LoopSetup {
  return {
    loopId: 'loop1',
    tools,
    countsTokens: false,
    stats: { turns: 0, toolCalls: 0, blocked: 0, repeated: 0, elided: 0 },
    logger: memoryLogger('error').logger,
    handBacks: {
      continuations: new Continuations(tokenSecret('a gateway secret that is long enough for wires'), 3600),
      req: { headers: {} } as IncomingMessage,
      binding: 'notes',
      succeeded: new Set(),
      loaded: [],
    },
    answerIds: new AnswerIds(),
    approvalTool: 'approve_tool_call',
    servesClientSearch: true,
    ...overrides,
  };
}

export const loopTool = (name: string): LoopTool => ({ name, parameters: { type: 'object' } });
