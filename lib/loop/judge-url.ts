import { frontDoorAt } from './front-door';
import type { JudgeWire, Wire } from './wire';

/** The judge's calls go to its wire's path beside the client's. */
export function judgeUrlOf(url: string, wire: Wire, judgeWire: JudgeWire): string {
  if (wire.path === judgeWire.path) return url;
  const parsed = new URL(url);
  const at = frontDoorAt(wire, parsed.pathname);
  parsed.pathname = parsed.pathname.slice(0, at < 0 ? parsed.pathname.length : at) + judgeWire.path;
  // Gemini's stream form: the judge's call is a JSON one
  if (parsed.searchParams.has('alt')) parsed.searchParams.delete('alt');
  return parsed.toString();
}
