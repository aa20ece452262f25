import type { Request } from 'express';
import { historyIn } from '../../../lib/wire/kit/history';
import type { ApprovalReader } from '../../../lib/person/approval-decision';
import type { FollowUp } from '../../../lib/loop/wire';

const reopened = { succeeded: ['search'], forged: 1, ignored: 0, loaded: [] };
const wire = historyIn(
  'contents',
  (_handBacks, items: readonly string[]) =>
    items.includes('token')
      ? { contents: items.map((item) => (item === 'token' ? 'work' : item)), ...reopened }
      : undefined,
  (_reader, _req, _binding, items: readonly string[]) =>
    items.includes('asked') ? { contents: items.filter((item) => item !== 'asked'), decisions: [] } : undefined,
);
const body = { model: 'm', contents: ['hi', 'token', 'asked'] };

describe('historyIn: a wire whose request carries its history in one list', () => {
  it("restores a follow-up's list and nothing else of its body, with what the tokens said", () => {
    expect(wire.restore(body, {} as FollowUp)).toEqual({
      body: { model: 'm', contents: ['hi', 'work', 'asked'] },
      ...reopened,
    });
    expect(wire.restore({ contents: ['hi'] }, {} as FollowUp)).toBeUndefined();
  });

  it('settles its approval exchanges in that list, and hands the normal handler the items it is given', () => {
    const settled = wire.approvals?.settle({} as ApprovalReader, {} as Request, 'notes', body);
    expect(settled).toEqual({ body: { model: 'm', contents: ['hi', 'token'] }, decisions: [] });
    expect(wire.approvals?.settle({} as ApprovalReader, {} as Request, 'notes', { contents: [] })).toBeUndefined();
    expect(wire.approvals?.withItems(body, ['done'])).toEqual({ model: 'm', contents: ['done'] });
  });
});
