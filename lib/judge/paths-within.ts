import path from 'node:path';

/**
 * Where one path an argument names lies against a rule's folders. `doubtful`: some reading of it lies inside and
 * another outside, or it cannot be read as an absolute path at all (not a string, relative, control characters,
 * broken percent-encoding), so a rule must take it the safe way round.
 */
export type Placement = 'inside' | 'outside' | 'doubtful';

// eslint-disable-next-line no-control-regex -- finding them is the point: a NUL or newline ends or splits a path
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const PERCENT_ESCAPE = /%[0-9a-f]{2}/i;
/** `%252e` is `%2e` once decoded; a path encoded more deeply than this is read as doubtful */
const MAX_DECODINGS = 3;

/** The folder as containment compares it: normalised, without a trailing slash (but `/` itself). */
export function folderOf(folder: string): string {
  const normalised = path.posix.normalize(folder);
  return normalised.length > 1 && normalised.endsWith('/') ? normalised.slice(0, -1) : normalised;
}

function percentDecoded(text: string): string | undefined {
  let decoded = text;
  for (let round = 0; round < MAX_DECODINGS && PERCENT_ESCAPE.test(decoded); round++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      return undefined;
    }
  }
  return PERCENT_ESCAPE.test(decoded) ? undefined : decoded;
}

/**
 * Every way a server might read the text: as written, percent-decoded, and each with `\` as a separator. Each
 * counts: decoding `%2f` splits a segment, so `..` climbs less in one reading than in the other.
 */
function readingsOf(text: string): string[] | undefined {
  const decoded = percentDecoded(text);
  if (decoded === undefined) return undefined;
  return [text, decoded, text.replaceAll('\\', '/'), decoded.replaceAll('\\', '/')];
}

function isWithin(reading: string, folder: string): boolean {
  const resolved = path.posix.normalize(reading);
  return folder === '/' || resolved === folder || resolved.startsWith(`${folder}/`);
}

export function placementOf(value: unknown, folders: string[]): Placement {
  if (typeof value !== 'string') return 'doubtful';
  const readings = readingsOf(value);
  if (!readings || readings.some((reading) => CONTROL_CHARACTER.test(reading) || !reading.startsWith('/')))
    return 'doubtful';
  const inside = readings.map((reading) => folders.some((folder) => isWithin(reading, folder)));
  if (inside.every(Boolean)) return 'inside';
  return inside.some(Boolean) ? 'doubtful' : 'outside';
}

/** The placement of each path an argument names: one for a string, one per item for a list, none when it is missing. */
export function placementsOf(value: unknown, folders: string[]): Placement[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map((item) => placementOf(item, folders)) : [placementOf(value, folders)];
}
