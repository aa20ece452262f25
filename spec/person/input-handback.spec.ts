import type { IncomingMessage } from 'node:http';
import { askPerson, inputCalls } from '../../lib/person/input-handback';
import { InputTokens } from '../../lib/person/input-token';
import type { WireCall } from '../../lib/loop/wire';
import { memoryLogger } from '../helpers/memory-logger';

type AskingLoop = Parameters<typeof inputCalls>[0];

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
