import type { CallToolResult, ToolContent } from '../types';

type Fields = Record<string, unknown>;

function field(content: Fields, name: string): string | undefined {
  const value = content[name];
  return typeof value === 'string' ? value : undefined;
}

function mediaPlaceholder(content: Fields): string {
  const bytes = Buffer.byteLength(field(content, 'data') ?? '', 'base64');
  return `[${String(content.type)}: ${field(content, 'mimeType') ?? 'unknown type'}, ${bytes} bytes]`;
}

function resourceText(content: Fields): string {
  const resource = (content.resource ?? {}) as Fields;
  const text = field(resource, 'text');
  if (text !== undefined) return text;
  const mimeType = field(resource, 'mimeType');
  return `[resource: ${field(resource, 'uri') ?? 'unnamed'}${mimeType ? ` (${mimeType})` : ''}]`;
}

function contentText(content: ToolContent): string {
  const fields = content as Fields;
  switch (content.type) {
    case 'text':
      return field(fields, 'text') ?? '';
    case 'image':
    case 'audio':
      return mediaPlaceholder(fields);
    case 'resource':
      return resourceText(fields);
    case 'resource_link':
      return `[resource link: ${field(fields, 'uri') ?? 'unnamed'}]`;
    default:
      return `[${String(content.type)} content]`;
  }
}

/**
 * Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character, saying how much was cut. Only the head
 * is encoded: a tool may return megabytes. Each UTF-16 code unit takes at least one byte of UTF-8, so the first
 * `maxBytes` units hold at least `maxBytes` bytes; a surrogate pair split at their end encodes past the cut.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return text;
  const bytes = Buffer.from(text.slice(0, maxBytes), 'utf8');
  let cut = Math.max(0, maxBytes);
  const isContinuationByte = (index: number) => (bytes[index] & 0b1100_0000) === 0b1000_0000;
  while (cut > 0 && isContinuationByte(cut)) cut--;
  return `${bytes.subarray(0, cut).toString('utf8')}\n[truncated: ${total - cut} of ${total} bytes cut]`;
}

/** One readable string for the model from a tool's MCP contents, cut to `maxBytes` of UTF-8. */
export function resultText(result: CallToolResult, maxBytes: number): string {
  return truncateUtf8((result.content ?? []).map(contentText).join('\n'), maxBytes);
}
