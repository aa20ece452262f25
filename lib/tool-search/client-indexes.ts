import { createHash } from 'node:crypto';
import type { LoopTool } from '../loop/loop-tool';
import { ToolIndex } from './tool-index';

/** Listings kept at most. */
export const MAX_CLIENT_INDEXES = 32;
/**
 * Characters indexed in all the listings kept (10 to 20 bytes of heap each, as measured: 40 to 80 MiB); the oldest go
 * first.
 */
export const MAX_CLIENT_INDEX_CHARS = 4 * 1024 * 1024;

interface Kept {
  held: readonly LoopTool[];
  index: ToolIndex;
}

/**
 * Clients send the same deferred tools with every request: the index over them (and the binding's tools held back)
 * is kept for the next, by a digest of the listing's JSON, the most recently used kept first, within a count and a
 * weight (characters indexed); an index heavier than all of it is used once and not kept.
 */
export class ClientIndexes {
  private readonly kept = new Map<string, Kept>();
  private chars = 0;

  constructor(
    private readonly maxEntries = MAX_CLIENT_INDEXES,
    private readonly maxChars = MAX_CLIENT_INDEX_CHARS,
  ) {}

  /** the index over the binding's tools held back and the client's */
  over(held: readonly LoopTool[], client: readonly LoopTool[]): ToolIndex {
    if (client.length === 0) return ToolIndex.of(held);
    const key = createHash('sha256').update(JSON.stringify(client)).digest('base64');
    const kept = this.kept.get(key);
    if (kept) this.drop(key, kept);
    const entry = kept?.held === held ? kept : { held, index: ToolIndex.of([...held, ...client]) };
    if (entry.index.chars > this.maxChars) return entry.index;
    this.kept.set(key, entry);
    this.chars += entry.index.chars;
    for (const [oldest, old] of this.kept) {
      if (this.kept.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.drop(oldest, old);
    }
    return entry.index;
  }

  /** what the listings kept weigh in all, and how many there are */
  get size(): { entries: number; chars: number } {
    return { entries: this.kept.size, chars: this.chars };
  }

  private drop(key: string, kept: Kept): void {
    this.kept.delete(key);
    this.chars -= kept.index.chars;
  }
}
