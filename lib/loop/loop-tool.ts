/** A tool as the loop offers it, in no wire's shape: each wire offers it in its own (a chat function, ...). */
export interface LoopTool {
  name: string;
  description?: string;
  /** the JSON schema of its arguments */
  parameters?: Record<string, unknown>;
}
