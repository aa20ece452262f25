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
    if (message?.role === 'tool') {
      const id = String(message.tool_call_id);
      if (!open.has(id)) problems.push({ id, what: 'answered, but not called in its turn' });
      else open.set(id, (open.get(id) ?? 0) + 1);
      continue;
    }
    closeTurn();
    for (const call of message?.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls : []) {
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

type Item = Record<string, unknown>;
const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The same on OpenAI Responses input items: every `function_call`'s `call_id` is unique and answered by exactly one
 * `function_call_output` after it; no output answers a call the input does not hold before it.
 */
export function auditResponsesCallIds(input: unknown[]): IdAudit {
  const ids: string[] = [];
  const problems: IdAudit['problems'] = [];
  const answers = new Map<string, number>();
  for (const item of input.filter(isItem)) {
    const id = String(item.call_id);
    if (item.type === 'function_call') {
      if (answers.has(id)) problems.push({ id, what: 'called twice' });
      ids.push(id);
      answers.set(id, 0);
    } else if (item.type === 'function_call_output') {
      if (!answers.has(id)) problems.push({ id, what: 'answered, but not called before' });
      else answers.set(id, answers.get(id)! + 1);
    }
  }
  for (const [id, count] of answers) if (count !== 1) problems.push({ id, what: `answered ${count} times` });
  return { ids, problems };
}

/**
 * The same on Anthropic Messages: every assistant `tool_use` id is unique and answered by exactly one `tool_result`
 * in the user message right after it; no `tool_result` answers a `tool_use` of another message.
 */
export function auditMessagesToolUseIds(messages: unknown[]): IdAudit {
  const ids: string[] = [];
  const problems: IdAudit['problems'] = [];
  const called = new Set<string>();
  const blocks = (message: unknown) =>
    isItem(message) && Array.isArray(message.content) ? message.content.filter(isItem) : [];
  let open = new Map<string, number>();
  for (const message of messages) {
    const role = isItem(message) ? message.role : undefined;
    if (role === 'user') {
      for (const block of blocks(message).filter((b) => b.type === 'tool_result')) {
        const id = String(block.tool_use_id);
        if (!open.has(id)) problems.push({ id, what: 'answered, but not called in the message before' });
        else open.set(id, open.get(id)! + 1);
      }
    }
    for (const [id, count] of open) if (count !== 1) problems.push({ id, what: `answered ${count} times` });
    open = new Map();
    if (role !== 'assistant') continue;
    for (const block of blocks(message).filter((b) => b.type === 'tool_use')) {
      const id = String(block.id);
      ids.push(id);
      if (called.has(id)) problems.push({ id, what: 'called twice' });
      called.add(id);
      open.set(id, 0);
    }
  }
  for (const [id, count] of open) if (count !== 1) problems.push({ id, what: `answered ${count} times` });
  return { ids, problems };
}
