/**
 * An AbortController that also aborts, with the same reason, when `parent` does; `unlink()` when done with it.
 * AbortSignal.any does the same at several times the cost, and every tool call needs one.
 */
export function linkedController(parent: AbortSignal): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return { controller, unlink: () => parent.removeEventListener('abort', follow) };
}
