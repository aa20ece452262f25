import type { ChatTool, Logger, Tool, Trellis } from '../types';

const OPEN_SCHEMA = { type: 'object', additionalProperties: true };

/**
 * The binding's tools as the model sees them, built from Trellis' definitions. Rebuilt only when Trellis hands
 * back a new list; when Trellis cannot list right now, the last known definitions (else bare names) are offered
 * so that the loop still runs and each call fails as a readable transport error.
 */
export class ToolCatalog {
  private listed?: Tool[];
  private built: ChatTool[];

  constructor(
    private readonly trellis: Trellis,
    private readonly names: string[],
    private readonly logger: Logger,
  ) {
    this.built = names.map((name) => ({ type: 'function', function: { name, parameters: OPEN_SCHEMA } }));
  }

  async tools(signal: AbortSignal): Promise<ChatTool[]> {
    try {
      const listed = await this.trellis.listTools(signal);
      if (listed !== this.listed) this.rebuild(listed);
    } catch (error) {
      this.logger.warn('agent-loop trellis listing failed; offering the last known tools', { reason: (error as Error).message });
    }
    return this.built;
  }

  private rebuild(listed: Tool[]): void {
    const byName = new Map(listed.map((tool) => [tool.name, tool]));
    this.listed = listed;
    this.built = this.names.map((name) => {
      const tool = byName.get(name);
      const previous = this.built.find((known) => known.function.name === name);
      if (!tool) return previous!;
      return { type: 'function', function: { name, description: tool.description, parameters: tool.inputSchema } };
    });
  }
}
