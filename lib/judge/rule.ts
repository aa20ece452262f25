import { RE2JS } from 're2js';
import { globToRegExp } from '../shared/glob';
import { effectiveAnnotations } from '../trellis/annotations';
import type { JudgeInput } from '../types';
import { folderOf, placementsOf } from './paths-within';
import { compiledPattern, type Rule } from './rule-schema';

export type { Rule } from './rule-schema';

export interface CompiledRule {
  rule: Rule;
  tool: RegExp;
  /** RE2: linear in the text's length whatever the pattern, so no rule can stall the event loop (ReDoS) */
  pattern?: RE2JS;
  argumentPath?: string[];
  /** the tool annotation the rule needs, and the value it needs it to have */
  annotation?: { name: string; is: boolean };
  /** normalised folders the argument's paths must lie in */
  within?: string[];
}

/** A validated rule's pattern was compiled as it was validated; a rule given as is is compiled here. */
const patternOf = (condition: object, source: string): RE2JS => compiledPattern(condition) ?? RE2JS.compile(source);

export function compileRule(rule: Rule): CompiledRule {
  const compiled: CompiledRule = { rule, tool: globToRegExp(rule.tool ?? '*') };
  if (rule.when && 'annotation' in rule.when) {
    compiled.annotation = { name: rule.when.annotation, is: rule.when.is ?? true };
  } else if (rule.when && 'within' in rule.when) {
    compiled.within = rule.when.within.map(folderOf);
    compiled.argumentPath = rule.when.argument.split('.');
  } else if (rule.when && 'argument' in rule.when) {
    compiled.pattern = patternOf(rule.when, rule.when.matches);
    compiled.argumentPath = rule.when.argument.split('.');
  } else if (rule.when) {
    compiled.pattern = patternOf(rule.when, rule.when.content);
  }
  return compiled;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function valueAt(root: unknown, path: string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined),
    root,
  );
}

export function withValueAt(root: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(root);
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string, unknown>;
  parent[path[path.length - 1]] = value;
  return copy;
}

/** Non-string values are judged by their JSON text, so a pattern cannot be dodged by wrapping a value in an array. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A missing argument reads as '', so an allow-list (an `allow` rule matching `^/srv/docs/` before a `block`) also
 * blocks a call that leaves the path out; a rewrite has nothing to rewrite there.
 */
function argumentText(compiled: CompiledRule, args: Record<string, unknown>, path: string[]): string | undefined {
  const value = valueAt(args, path);
  if (value !== undefined) return textOf(value);
  return compiled.rule.action === 'rewrite' ? undefined : '';
}

/** A hint the tool left out reads as MCP's default for it; any other annotation as false unless it is `true`. */
function annotationOf(input: JudgeInput, name: string): boolean {
  const annotations = input.annotations ?? effectiveAnnotations();
  return annotations[name] === true;
}

/**
 * `within`, read the safe way round: an `allow` needs every path the argument names inside a folder, a `block`
 * any path that is not plainly outside, so neither a doubtful path nor a harmless one beside it slips through.
 */
function pathsMatch(compiled: CompiledRule, args: Record<string, unknown>): boolean {
  const placements = placementsOf(valueAt(args, compiled.argumentPath!), compiled.within!);
  if (compiled.rule.action === 'allow')
    return placements.length > 0 && placements.every((placement) => placement === 'inside');
  return placements.some((placement) => placement !== 'outside');
}

/** The text the rule's regex matched ('' for a rule without `when`), or undefined when the rule does not apply. */
export function matchedText(
  compiled: CompiledRule,
  input: JudgeInput,
  args: Record<string, unknown>,
  result: string,
): string | undefined {
  if (compiled.rule.surface !== input.surface || !compiled.tool.test(input.tool)) return undefined;
  if (compiled.annotation)
    return annotationOf(input, compiled.annotation.name) === compiled.annotation.is ? '' : undefined;
  if (compiled.within) return pathsMatch(compiled, args) ? '' : undefined;
  if (!compiled.pattern) return '';
  const text = compiled.argumentPath ? argumentText(compiled, args, compiled.argumentPath) : result;
  return text !== undefined && compiled.pattern.test(text) ? text : undefined;
}
