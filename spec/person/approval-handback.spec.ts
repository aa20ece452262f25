import type { IncomingMessage } from 'node:http';
import { approvalCalls } from '../../lib/person/approval-handback';
import { ApprovalTokens } from '../../lib/person/approval-token';
import { memoryLogger } from '../helpers/memory-logger';

type AskingLoop = Parameters<typeof approvalCalls>[0];

describe('approvalCalls: each call waiting for a person as a call to the client’s approval tool', () => {
  it('shows the tool, arguments and reason, seals the call in the id, and logs the ask, its reason with no argument value', () => {
    const tokens = new ApprovalTokens(Buffer.alloc(32, 4), 600);
    const req = { headers: {} } as IncomingMessage;
    const { logger, lines } = memoryLogger('info');
    const loop = {
      id: 'loop-1',
      req,
      binding: { name: 'notes' },
      logger,
      approvalTool: 'approve_tool_call',
    } as unknown as AskingLoop;
    const pending = [
      { callId: 'call_del', tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes groceries' },
      { callId: 'call_mv', tool: 'notes_move', arguments: { to: 'bin' }, reason: 'it moves' },
    ];
    const calls = approvalCalls(loop, tokens, pending);

    expect(calls.map((call) => [call.type, call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      [
        'function',
        'approve_tool_call',
        { tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes groceries' },
      ],
      ['function', 'approve_tool_call', { tool: 'notes_move', arguments: { to: 'bin' }, reason: 'it moves' }],
    ]);
    expect(calls.map((call) => tokens.read(req, 'notes', call.id))).toEqual([
      expect.objectContaining({ opened: pending[0] }),
      expect.objectContaining({ opened: pending[1] }),
    ]);
    expect(lines.map((line) => [line.message, line.tool, line.reason])).toEqual([
      ['agent-loop approval asked', 'notes_delete', 'it deletes [argument]'],
      ['agent-loop approval asked', 'notes_move', 'it moves'],
    ]);
  });
});
