import { RE2JS } from 're2js';
import type { LoopTool } from '../loop/loop-tool';
import { EventLoopSlices } from './event-loop-slices';
import { repetitionOf } from './repetition';
import { foundTool, searchedText, type FoundTool } from './tool-index';

/**
 * A pattern the search refuses (it does not compile, or costs too much): the text says why, for the model to mend it.
 */
export class BadPattern extends Error {}

/** Longer patterns are refused: a pattern's size is the model's to choose. */
export const MAX_PATTERN_LENGTH = 200;
/**
 * Repetition counts copy what they repeat, nested ones multiplied: more copies make a slow compile and a slow search.
 */
export const MAX_REPETITION = 100;
/**
 * RE2 is linear in the text, but its work per character grows with the pattern's program (its instructions): a
 * repetition count copies what it repeats, `(?:a?.|.b?){0,1000}` is 8,004 of them, ~235 µs per character.
 */
export const MAX_PROGRAM_SIZE = 200;
/** Each tool's name and text are searched up to this many characters. */
export const MAX_SEARCHED_CHARS = 16_384;
/**
 * One match's work (program size × characters): it cannot be interrupted, so it holds the event loop ~25 ms at most.
 */
export const MAX_MATCH_WORK = 500_000;
/** One search's work in all; past it the search stops and the model reads why. */
export const MAX_SEARCH_WORK = 50_000_000;
const SIMPLER = 'use a simpler pattern, e.g. "pull_request|merge"';

function compiled(pattern: string): RE2JS {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new BadPattern(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  const copies = repetitionOf(pattern);
  if (copies > MAX_REPETITION)
    throw new BadPattern(
      'the pattern is too complex: its repetition counts ({n} or {n,m}) ' +
        `come to ${copies} copies of what they repeat (nested counts multiply), ` +
        `at most ${MAX_REPETITION}; ${SIMPLER}`,
    );
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    // the message quotes the pattern as compiled, with the case flag it was given
    const why = (error as Error).message.replace(/^error parsing regexp: /, '').replace('`(?i)', '`');
    throw new BadPattern(`the pattern does not compile under RE2: ${why}`);
  }
  const size = regex.programSize();
  if (size > MAX_PROGRAM_SIZE)
    throw new BadPattern(
      `the pattern is too complex: its RE2 program has ${size} instructions, ` +
        `at most ${MAX_PROGRAM_SIZE} (each repetition count copies what it repeats); ${SIMPLER}`,
    );
  return regex;
}

/** Matches one text after another within the search's budgets: cut texts, a work limit, turns of the event loop. */
class Matcher {
  /** a complex pattern searches fewer characters of each text, so that one match stays short */
  private readonly chars: number;
  private work = 0;
  private readonly slices = new EventLoopSlices();

  constructor(
    private readonly regex: RE2JS,
    private readonly tools: number,
  ) {
    this.chars = Math.min(MAX_SEARCHED_CHARS, Math.floor(MAX_MATCH_WORK / regex.programSize()));
  }

  async finds(text: string): Promise<boolean> {
    const cut = text.length > this.chars ? text.slice(0, this.chars) : text;
    this.work += cut.length * this.regex.programSize();
    if (this.work > MAX_SEARCH_WORK)
      throw new BadPattern(
        `the pattern is too costly to search the text of ${this.tools} tools ` +
          `(its RE2 program has ${this.regex.programSize()} instructions); ${SIMPLER}`,
      );
    await this.slices.between();
    return this.regex.matcher(cut).find();
  }
}

/**
 * Anthropic's regex tool search, served by the loop: the model's pattern, under RE2, searched for in each tool's
 * name, description and parameters' names and descriptions, case-insensitively; tools whose name matches come first,
 * then the rest in listing order. Bounded (see the constants above): a pattern that costs too much is refused with a
 * BadPattern, and a long search gives the event loop back between matches.
 */
export async function regexSearch(tools: readonly LoopTool[], pattern: string, max: number): Promise<FoundTool[]> {
  const matcher = new Matcher(compiled(pattern), tools.length);
  const found: LoopTool[] = [];
  for (const tool of tools) {
    if (found.length >= max) break;
    if (await matcher.finds(tool.name)) found.push(tool);
  }
  const named = new Set(found);
  for (const tool of tools) {
    if (found.length >= max) break;
    if (!named.has(tool) && (await matcher.finds(searchedText(tool)))) found.push(tool);
  }
  return found.map(foundTool);
}
