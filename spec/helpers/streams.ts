import type { Readable } from 'node:stream';

/** Reads `stream` and aborts `controller` at its first part: the parts read, and the error the reading ended with. */
export async function abortAtFirstPart(
  stream: Readable,
  controller: AbortController,
): Promise<{ parts: string[]; error?: Error }> {
  const parts: string[] = [];
  try {
    for await (const part of stream) {
      parts.push(String(part));
      controller.abort(new Error('client went away'));
    }
  } catch (error) {
    return { parts, error: error as Error };
  }
  return { parts };
}
