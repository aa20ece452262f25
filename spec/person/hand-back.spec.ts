import type { IncomingMessage } from 'node:http';
import { approvalCalls, askPerson, inputCalls } from '../../lib/person/hand-back';
import { ApprovalTokens } from '../../lib/person/approval';
import { memoryLogger } from '../helpers/memory-logger';
import { InputTokens } from '../../lib/person/input';
import type { WireCall } from '../../lib/loop/wire';

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

    expect(calls.map((call) => [call.name, JSON.parse(call.arguments as string)])).toEqual([
      ['approve_tool_call', { tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes groceries' }],
      ['approve_tool_call', { tool: 'notes_move', arguments: { to: 'bin' }, reason: 'it moves' }],
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

describe('the questions handed back: one call to the input tool per question', () => {
  const tokens = new InputTokens(Buffer.alloc(32, 9), 600);
  const req = { headers: {} } as IncomingMessage;
  const { logger } = memoryLogger('info');
  const pending = {
    callId: 'call_p',
    tool: 'profile',
    arguments: {},
    questions: {
      name: { tool: 'profile', message: 'Name?', mode: 'url' as const, url: 'https://a' },
      color: { tool: 'profile', message: 'Colour?', mode: 'url' as const, url: 'https://b' },
    },
    answered: {},
    round: 1,
  };

  it('seals each question of one call with the same group and every key', () => {
    const loop = {
      id: 'l',
      req,
      binding: { name: 'b' },
      logger,
      input: { tool: 'ask_user', maxRounds: 3 },
    } as unknown as AskingLoop;
    const calls = inputCalls(loop, tokens, [pending]);
    expect(calls.map((call) => [call.name, JSON.parse(String(call.arguments)).message])).toEqual([
      ['ask_user', 'Name?'],
      ['ask_user', 'Colour?'],
    ]);
    const read = calls.map((call) => tokens.read(req, 'b', call.id));
    const [first, second] = read.map((one) => ('opened' in one ? one.opened : undefined));
    expect([first?.key, second?.key]).toEqual(['name', 'color']);
    expect(first?.keys).toEqual(['name', 'color']);
    expect(first?.group).toBe(second?.group);
  });

  it('stops with `input` when a tool asks, `final` when only approvals wait', () => {
    const handed: WireCall[][] = [];
    const loop = {
      askApproval: (approvals: unknown[]) =>
        approvals.map((_, i) => ({ id: `ap${i}`, name: 'approve_tool_call', index: 0 })),
      askInput: (inputs: unknown[]) => inputs.map((_, i) => ({ id: `in${i}`, name: 'ask_user', index: 0 })),
      conversation: { handBack: (_turn: unknown, calls: WireCall[]) => (handed.push(calls), calls) },
    } as unknown as Parameters<typeof askPerson>[0];
    const approval = { callId: 'c', tool: 't', arguments: {}, reason: 'r' };
    expect(askPerson(loop, undefined, [approval, pending])[0]).toBe('input');
    expect(handed[0].map((call) => call.id)).toEqual(['ap0', 'in0']);
    expect(askPerson(loop, undefined, [approval])[0]).toBe('final');
  });
});
