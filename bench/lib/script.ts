/** The benchmark's 4-turn script, shared by the upstream (which plays it) and the client (which verifies it). */
export const TURNS = 4;
export const CALLS_PER_TURN = 2;
export const MODEL = 'bench';

export function echoText(id: string, turn: number, call: number): string {
  return `L${id}-T${turn}-${'ab'[call]}`;
}

export function allEchoTexts(id: string): string[] {
  const texts: string[] = [];
  for (let turn = 1; turn < TURNS; turn++)
    for (let call = 0; call < CALLS_PER_TURN; call++) texts.push(echoText(id, turn, call));
  return texts;
}

/** The upstream's turn-4 answer lists the echoes it found in the tool messages: it is this text only if it saw all six. */
export function finalText(id: string, found = allEchoTexts(id)): string {
  return `loop ${id} done: ${found.join(' ')}`;
}

export function userPrompt(id: string): string {
  return `loop ${id}`;
}

export function loopIdOfPrompt(text: string): string | undefined {
  return /loop (\S+)/.exec(text)?.[1];
}

export function loopIdOfEcho(text: string): string {
  return text.replace(/^L/, '').replace(/-T\d+-[ab]$/, '');
}

/** Text of a chat message's content, whether a string or an array of parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part === 'string' ? part : String(part?.text ?? ''))).join('');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}
