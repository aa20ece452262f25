import type { EffectiveAnnotations, ToolAnnotations } from '../types';

/**
 * A tool's annotations with MCP's defaults filled in, as the spec reads a tool that says nothing: not read-only,
 * destructive (unless read-only), not idempotent, open-world. So a rule on `destructiveHint` also stops the
 * tools that never said they were safe.
 */
export function effectiveAnnotations(annotations: ToolAnnotations = {}): EffectiveAnnotations {
  const readOnlyHint = annotations.readOnlyHint === true;
  return {
    ...annotations,
    readOnlyHint,
    destructiveHint: !readOnlyHint && annotations.destructiveHint !== false,
    idempotentHint: annotations.idempotentHint === true,
    openWorldHint: annotations.openWorldHint !== false,
  };
}
