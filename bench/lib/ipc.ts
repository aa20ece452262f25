/** The child side of the harness's IPC: answers `{ id, type, payload }` with `{ id, result }` or `{ id, error }`. */
export type Handlers = Record<string, (payload: unknown) => unknown>;

export function answerAsks(handlers: Handlers): void {
  process.on('message', async function answerAsk(message: { id?: number; type?: string; payload?: unknown }) {
    if (typeof message?.id !== 'number' || !message.type) return;
    try {
      const handler = handlers[message.type];
      if (!handler) throw new Error(`unknown ask '${message.type}'`);
      process.send?.({ id: message.id, result: await handler(message.payload) });
    } catch (error) {
      process.send?.({ id: message.id, error: (error as Error).message });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
