interface Message {
  role: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

export interface IdAudit {
  /** every tool_call_id the conversation's assistant messages carry */
  ids: string[];
  /** what is wrong: an id called twice, answered twice, not answered before the next turn, or an answer without a call */
  problems: { id: string; what: string }[];
}

/**
 * Checks a conversation as the upstream receives it: every tool call's id is unique and is answered by exactly one
 * `role: "tool"` message, between its assistant message and the next one.
 */
export function auditToolCallIds(messages: Message[]): IdAudit {
  const ids: string[] = [];
  const problems: IdAudit['problems'] = [];
  const called = new Set<string>();
  let open = new Map<string, number>();
  const closeTurn = () => {
    for (const [id, answers] of open) if (answers !== 1) problems.push({ id, what: `answered ${answers} times` });
    open = new Map();
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const id = String(message.tool_call_id);
      if (!open.has(id)) problems.push({ id, what: 'answered, but not called in its turn' });
      else open.set(id, (open.get(id) ?? 0) + 1);
      continue;
    }
    closeTurn();
    for (const call of message.role === 'assistant' ? (message.tool_calls ?? []) : []) {
      const id = String((call as { id?: unknown })?.id);
      ids.push(id);
      if (called.has(id)) problems.push({ id, what: 'called twice' });
      called.add(id);
      open.set(id, 0);
    }
  }
  closeTurn();
  return { ids, problems };
}
