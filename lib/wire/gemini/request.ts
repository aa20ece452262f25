import type { Request } from 'express';
import { isObject } from '../../shared/fields';
import type { LoopTool } from '../../loop/loop-tool';
import type { WireRequest } from '../../loop/wire';
import type { Content } from './types';
import { routePattern } from '../../shared/route-pattern';

export interface GeminiRequest extends WireRequest {
  contents: Content[];
  tools?: unknown;
  toolConfig?: unknown;
}

/** A function as Gemini takes it, its schema whole in `parametersJsonSchema`. */
export interface FunctionDeclaration {
  name: string;
  description?: string;
  [key: string]: unknown;
}

/**
 * `.../models/{model}:generateContent` (one JSON response) and `:streamGenerateContent` (a stream), under `/v1beta/`,
 * `/v1/` or Vertex's `.../publishers/google/`: the model is the path's, never the body's.
 */
export const GENERATE = routePattern('/models/{model}:generateContent');
export const STREAM_GENERATE = routePattern('/models/{model}:streamGenerateContent');

/** The model the path names (`gemini-2.5-flash`), or undefined when the path is no Gemini route. */
export const modelInPath = (path: string): string | undefined =>
  (GENERATE.match(path) ?? STREAM_GENERATE.match(path))?.params.model;

/** `:streamGenerateContent`: the client reads a stream (SSE with `alt=sse`, else the JSON array form). */
export const isStreamPath = (path: string): boolean => STREAM_GENERATE.match(path) !== undefined;

/** What the client asked with `alt=sse` (the SDK always does when it streams). */
export const asksForSse = (req: Request): boolean => req.query.alt === 'sse';

/** `toolConfig.functionCallingConfig.mode: 'NONE'`: the model calls no function, so the loop has nothing to run. */
function callsNoFunction(toolConfig: unknown): boolean {
  return isObject(toolConfig) && isObject(toolConfig.functionCallingConfig)
    ? toolConfig.functionCallingConfig.mode === 'NONE'
    : false;
}

/** A generateContent request the loop can serve: contents of user and model turns, each a list of parts. */
export function isGeminiRequest(body: unknown): body is GeminiRequest {
  if (!isObject(body) || !Array.isArray(body.contents) || body.contents.length === 0) return false;
  if (callsNoFunction(body.toolConfig)) return false;
  return body.contents.every(
    (content) =>
      isObject(content) &&
      Array.isArray(content.parts) &&
      (content.role === undefined || content.role === 'user' || content.role === 'model'),
  );
}

/**
 * The binding's tools (MCP's definitions) as Gemini takes them: the JSON Schema in
 * `parametersJsonSchema` (MCP's schemas are JSON Schema; the OpenAPI subset of `parameters` would lose what it
 * cannot say, `$ref`, `oneOf`, `additionalProperties`, ...), without the dialect tag `$schema`, which Gemini's
 * function declarations do not list among the keywords they take (docs/mcp.md).
 */
export const geminiFunction = ({ name, description, parameters }: LoopTool): FunctionDeclaration => {
  const { $schema: _dialect, ...schema } = parameters ?? { type: 'object' };
  return { name, ...(description === undefined ? {} : { description }), parametersJsonSchema: schema };
};

/** The client's tools: every `functionDeclarations` list and any other tool (`googleSearch`, `codeExecution`, ...). */
export const clientToolsOf = (tools: unknown): Record<string, unknown>[] =>
  Array.isArray(tools) ? tools.filter(isObject) : [];

/** The names of the functions the client declared. */
export function declaredNames(tools: readonly Record<string, unknown>[]): string[] {
  return tools.flatMap((tool) =>
    Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations.flatMap((fn) => (isObject(fn) && typeof fn.name === 'string' ? [fn.name] : []))
      : [],
  );
}

/** The client's tools without the functions named in `dropped` (a tool left with no function goes too). */
export function withoutFunctions(
  tools: readonly Record<string, unknown>[],
  dropped: (name: string) => boolean,
): Record<string, unknown>[] {
  return tools.flatMap((tool) => {
    if (!Array.isArray(tool.functionDeclarations)) return [tool];
    const kept = tool.functionDeclarations.filter((fn) => !(isObject(fn) && dropped(String(fn.name))));
    if (kept.length === tool.functionDeclarations.length) return [tool];
    return kept.length === 0 ? [] : [{ ...tool, functionDeclarations: kept }];
  });
}

/** The parts of a content, each an object. */
export const partsOf = (content: Content | undefined): Content['parts'] =>
  Array.isArray(content?.parts) ? content.parts.filter(isObject) : [];

/**
 * What every turn asks the model: the client's request (`systemInstruction`, `generationConfig`, `toolConfig`, ...
 * as sent) with the loop's functions in a `functionDeclarations` tool before the client's own tools.
 */
export function turnFields(body: GeminiRequest, own: Record<string, unknown>[], theirs: Record<string, unknown>[]) {
  const { tools: _replaced, ...rest } = body;
  const tools = [...own, ...theirs];
  return tools.length > 0 ? { ...rest, tools } : rest;
}
