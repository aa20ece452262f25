import type { Client } from '@modelcontextprotocol/client';
import { redactedArgs } from '../shared/redact';
import type { CallToolOptions, CallToolResult, Tool } from '../types';
import type { McpTrellisOptions } from './mcp-options';
import type { paramHeaderDefinitions } from './mcp-param-headers';
import type { TaskFollower } from './task-follower';
import { callWithInput, type Root } from './mcp-input';
import type { AskedDuringCall } from './mcp-asked-during-call';

/** The caller's signal bounds every call; the SDK's own 60 s default would cut tools allowed to run longer. */
const CALL_TIMEOUT_MS = 60 * 60 * 1000;
const LIST_TIMEOUT_MS = 30 * 1000;

export function placeOf(options: McpTrellisOptions): string {
  // the arguments too (redacted): two servers started with `node` are told apart by their scripts
  if (!('url' in options)) return `'${[options.command, ...redactedArgs(options.args ?? [])].join(' ')}'`;
  const url = new URL(options.url);
  return `${url.origin}${url.pathname}`;
}

export function toTool({ name, description, inputSchema, annotations, _meta }: Tool): Tool {
  return {
    name,
    ...(description === undefined ? {} : { description }),
    inputSchema,
    ...(annotations ? { annotations } : {}),
    ...(_meta ? { _meta } : {}),
  };
}

/** The configured headers with the user's forwarded ones in place of any of the same name, whatever its case. */
export function withForwarded(
  configured: Record<string, string> = {},
  forwarded: Record<string, string>,
): Record<string, string> {
  const kept = Object.entries(configured).filter(([name]) => !Object.hasOwn(forwarded, name.toLowerCase()));
  return { ...Object.fromEntries(kept), ...forwarded };
}

export type HeaderDefinitions = ReturnType<typeof paramHeaderDefinitions>;

/** Every page of `tools/list` (the SDK walks them), fetched afresh: the cache here is the one that counts. */
export async function listAll(client: Client, headers: HeaderDefinitions): Promise<Tool[]> {
  const listed = await client.listTools(undefined, { timeout: LIST_TIMEOUT_MS, cacheMode: 'bypass' });
  headers.remember(listed.tools);
  return (listed.tools as Tool[]).map(toTool);
}

/**
 * `roots`: what a server that asks for its roots is told (`trellis.mcp.roots`); `tasks`: follows a call answered
 * with a task, and takes the answers to a task that asked the person.
 */
export function callOn(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  callOptions: CallToolOptions,
  headers: HeaderDefinitions,
  roots: readonly Root[],
  tasks: TaskFollower,
  asked: AskedDuringCall,
): Promise<CallToolResult> {
  const { signal, meta, onProgress, input } = callOptions;
  const onprogress =
    onProgress &&
    (({ progress, total, message }: { progress: number; total?: number; message?: string }) =>
      onProgress({ progress, total, message }));
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  const options = {
    signal,
    timeout: CALL_TIMEOUT_MS,
    allowInputRequired: true,
    ...(onprogress ? { onprogress } : {}),
    ...headers.of(name),
  };
  return callWithInput(
    (answers) =>
      answers?.taskId === undefined
        ? asked.call(
            client,
            name,
            (own) =>
              client
                .callTool({ ...params, ...answers }, { ...options, signal: own })
                .then((result) => tasks.follow(client, result, callOptions)),
            { signal, input: answers, ttlSec: callOptions.inputTtlSec },
          )
        : tasks.resume(client, { ...answers, taskId: answers.taskId }, callOptions),
    input,
    roots,
  );
}
