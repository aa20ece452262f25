import { frontDoorAt } from './front-door';
import type { JudgeWire, Wire } from './wire';

/**
 * The judge's calls go to its wire's path beside the client's: the wire's part of the path (where its route matched)
 * swapped for the judge's; the client's own URL when that is the judge's path already.
 */
export function judgeUrlOf(url: string, wire: Wire, judgeWire: JudgeWire): string {
  const parsed = new URL(url);
  const at = frontDoorAt(wire, parsed.pathname);
  const judged = parsed.pathname.slice(0, at < 0 ? parsed.pathname.length : at) + judgeWire.path;
  if (judged === parsed.pathname) return url;
  parsed.pathname = judged;
  // Gemini's stream form: the judge's call is a JSON one
  if (parsed.searchParams.has('alt')) parsed.searchParams.delete('alt');
  return parsed.toString();
}
