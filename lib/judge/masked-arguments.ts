/** What stands in for an argument's value in a judge's text on its way to a log line. */
export const MASKED = '[argument]';

/** Shorter values (`id: 7`, `on`, `yes`) would mask common words: only strings of this many characters or more go. */
const MIN_MASKED_CHARS = 4;

/**
 * Every string of 4 characters or more in the arguments, at any depth; walked with a stack, so no depth overflows it.
 */
function valuesOf(argumentSets: unknown[]): Set<string> {
  const values = new Set<string>();
  const pending = [...argumentSets];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.length >= MIN_MASKED_CHARS) values.add(value);
    } else if (typeof value === 'object' && value !== null) pending.push(...Object.values(value));
  }
  return values;
}

/**
 * A judge's text (its reason, its error) with every argument value of the call it judged masked, as written and as
 * JSON writes it (a model quoting the call quotes its JSON): SECURITY.md's "log lines never carry tool arguments".
 * The longest value goes first, so a value inside another leaves nothing of the longer one.
 */
export function maskedArguments(text: string, ...argumentSets: unknown[]): string {
  const forms = new Set<string>();
  for (const value of valuesOf(argumentSets)) forms.add(value).add(JSON.stringify(value).slice(1, -1));
  let masked = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length))
    if (form.length >= MIN_MASKED_CHARS) masked = masked.split(form).join(MASKED);
  return masked;
}
