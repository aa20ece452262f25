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

const partsOf = (content: unknown) =>
  isItem(content) && Array.isArray(content.parts) ? content.parts.filter(isItem) : [];
const inner = (value: unknown): Item[] => (isItem(value) ? [value] : []);

export interface GeminiAudit {
  ids: string[];
  /** `at`: the index of the call turn's content (of the answer's, for an answer without a call turn) */
  problems: (IdAudit['problems'][number] & { at: number })[];
}

/**
 * The same on Gemini contents, where calls often carry no id: every `functionCall` of a `model` content is answered
 * by exactly one `functionResponse` in the `user` content right after it, in call order, under the call's name and
 * the call's id (none where it had none); no `functionResponse` answers a content that is not that call turn. A
 * problem's id is `<content index>:<name>`.
 */
export function auditGeminiCalls(contents: unknown[]): GeminiAudit {
  const ids: string[] = [];
  const problems: GeminiAudit['problems'] = [];
  let open: Item[] = [];
  let openAt = -1;
  contents.forEach((content, at) => {
    const role = isItem(content) ? content.role : undefined;
    const answers = partsOf(content).flatMap((part) => inner(part.functionResponse));
    const label = (item: Item | undefined, i: number) => `${i}:${String(item?.name)}`;
    if (open.length > 0 || answers.length > 0) {
      if (open.length === 0) problems.push({ at, id: label(answers[0], at), what: 'answered, but not called before' });
      else if (role !== 'user') problems.push({ at: openAt, id: label(open[0], openAt), what: 'not answered' });
      else if (open.length !== answers.length)
        problems.push({
          at: openAt,
          id: label(open[0], openAt),
          what: `${open.length} calls, ${answers.length} answers`,
        });
      else
        open.forEach((call, i) => {
          if (JSON.stringify([answers[i].name, answers[i].id]) !== JSON.stringify([call.name, call.id]))
            problems.push({
              at: openAt,
              id: label(call, openAt),
              what: `answered out of order by ${label(answers[i], at)}`,
            });
        });
    }
    open = role === 'model' ? partsOf(content).flatMap((part) => inner(part.functionCall)) : [];
    openAt = at;
    for (const call of open) ids.push(label(call, at));
  });
  if (open.length > 0) problems.push({ at: openAt, id: `${openAt}:${String(open[0].name)}`, what: 'not answered' });
  return { ids, problems };
}
