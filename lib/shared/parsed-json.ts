/** What JSON `text` says; undefined when it is not JSON (JSON.parse reads any value as its string). */
export function parsedOrUndefined(text: unknown): unknown {
  try {
    return JSON.parse(text as string);
  } catch {
    return undefined;
  }
}
