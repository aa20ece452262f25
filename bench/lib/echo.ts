import { loopIdOfEcho } from './script';

/** The `echo` tool every system calls. While the gate is closed, calls park until the harness opens it. */
let gate: { opened: Promise<void>; open: () => void } | undefined;
const parked = new Map<string, number>();

export function echo(text: string): string | Promise<string> {
  if (!gate) return text;
  const loop = loopIdOfEcho(text);
  parked.set(loop, (parked.get(loop) ?? 0) + 1);
  return gate.opened.then(() => {
    const left = (parked.get(loop) ?? 1) - 1;
    if (left > 0) parked.set(loop, left);
    else parked.delete(loop);
    return text;
  });
}

export function closeGate(): void {
  if (gate) return;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  gate = { opened, open };
}

export function openGate(): void {
  gate?.open();
  gate = undefined;
}

export function parkedLoops(): number {
  return parked.size;
}

export const echoSchema = {
  type: 'object' as const,
  properties: { text: { type: 'string' as const } },
  required: ['text'],
  additionalProperties: false,
};
export const echoDescription = 'Echo the text back.';
