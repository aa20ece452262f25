import { earlierInput, inputAnswerOf, misfit } from '../../lib/person/input-answer';
import type { Question } from '../../lib/person/question';

const form: Question = {
  tool: 'pay',
  message: 'Pay?',
  mode: 'form',
  requestedSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { confirm: { type: 'boolean' }, account: { type: 'string' } },
    required: ['confirm', 'account'],
  },
};

describe('a person’s answer to a tool’s question', () => {
  it('reads MCP’s { action, content }; anything else is a cancel', () => {
    expect(inputAnswerOf({ action: 'accept', content: { a: 1 } })).toEqual({ action: 'accept', content: { a: 1 } });
    expect(inputAnswerOf({ action: 'accept' })).toEqual({ action: 'accept', content: {} });
    expect(inputAnswerOf({ action: 'decline' })).toEqual({ action: 'decline' });
    expect(inputAnswerOf({ action: 'maybe' })).toEqual({ action: 'cancel' });
    expect(inputAnswerOf('yes')).toEqual({ action: 'cancel' });
  });

  it('checks accepted content against the requested schema (JSON Schema 2020-12), naming the field', () => {
    expect(misfit(form, { confirm: true, account: 'main' })).toBeUndefined();
    expect(misfit(form, { confirm: true })).toEqual({
      why: 'invalid_answer',
      field: 'account',
      problem: "must have required property 'account'",
    });
    expect(misfit(form, { confirm: 'yes', account: 'main' })).toEqual({
      why: 'invalid_answer',
      field: 'confirm',
      problem: 'must be boolean',
    });
    expect(misfit({ tool: 'p', message: 'm', mode: 'url', url: 'https://x' }, {})).toBeUndefined();
    const broken: Question = { ...form, requestedSchema: { type: 'nonsense' } };
    expect(misfit(broken, {})?.field).toBe('(schema)');
  });

  it('reads an answer of an earlier request as what it decided', () => {
    expect(earlierInput('pay', { action: 'accept' })).toEqual({ kind: 'approved_earlier', tool: 'pay' });
    expect(earlierInput('pay', { action: 'decline' })).toEqual({ kind: 'unanswered', tool: 'pay', why: 'declined' });
    expect(earlierInput('pay', undefined)).toEqual({ kind: 'unanswered', tool: 'pay', why: 'cancelled' });
  });
});
