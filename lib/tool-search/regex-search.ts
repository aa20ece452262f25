import { RE2JS } from 're2js';
import type { ChatTool } from '../types';
import { foundTool, searchedText, type FoundTool } from './tool-index';

/** The pattern does not compile under RE2: the text says why, for the model to mend it. */
export class BadPattern extends Error {}

/** Longer patterns are refused: RE2 runs in linear time, but a pattern's size is the model's to choose. */
export const MAX_PATTERN_LENGTH = 200;

/**
 * Anthropic's regex tool search, served by the loop: the model's pattern, under RE2 (linear time, as the judge's
 * patterns), searched for in each tool's name, description and parameters' names and descriptions, case-insensitively;
 * tools whose name matches come first, then the rest in listing order.
 */
export function regexSearch(tools: readonly ChatTool[], pattern: string, max: number): FoundTool[] {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new BadPattern(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    // the message quotes the pattern as compiled, with the case flag it was given
    throw new BadPattern((error as Error).message.replace(/^error parsing regexp: /, '').replace('`(?i)', '`'));
  }
  const byName = tools.filter((tool) => compiled.matcher(tool.function.name).find());
  const named = new Set(byName);
  const byText = tools.filter((tool) => !named.has(tool) && compiled.matcher(searchedText(tool)).find());
  return [...byName, ...byText].slice(0, max).map(foundTool);
}
