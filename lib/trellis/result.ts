import { toolErrorText } from '../loop/tool-outcome';
import type { CallToolResult, ToolContent } from '../types';
import type { ToolImage } from '../loop/tool-outcome';

type Fields = Record<string, unknown>;

const TEXT_LIKE =
  /^(text\/|application\/(json|xml|yaml|x-yaml|toml|javascript|ecmascript|x-sh|sql|graphql|csv|x-ndjson)\b|application\/[^;]*\+(json|xml|yaml)\b|image\/svg\+xml\b)/i;

function field(content: Fields, name: string): string | undefined {
  const value = content[name];
  return typeof value === 'string' ? value : undefined;
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}

function mediaPlaceholder(content: Fields, shown: boolean): string {
  const bytes = base64Bytes(field(content, 'data') ?? '');
  return (
    `[${String(content.type)}: ${field(content, 'mimeType') ?? 'unknown type'}, ` +
    `${bytes} bytes${shown ? '; attached to the next message' : ''}]`
  );
}

/** What the model is told of a resource it does not get the contents of: every descriptive field there is. */
function resourceLabel(kind: string, fields: Fields, bytes?: number): string {
  const size = bytes ?? (typeof fields.size === 'number' ? fields.size : undefined);
  const parts = [
    field(fields, 'uri') ?? 'unnamed',
    ...(['name', 'description'] as const).flatMap((name) =>
      field(fields, name) ? [`${name}: ${field(fields, name)}`] : [],
    ),
    ...(field(fields, 'mimeType') ? [`type: ${field(fields, 'mimeType')}`] : []),
    ...(size === undefined ? [] : [`size: ${size} bytes`]),
  ];
  return `[${kind}: ${parts.join('; ')}]`;
}

/** A text-like blob is decoded (the result's limit then cuts it like any text); any other blob is described. */
function resourceText(content: Fields): string {
  const resource = (content.resource ?? {}) as Fields;
  const text = field(resource, 'text');
  if (text !== undefined) return text;
  const blob = field(resource, 'blob') ?? '';
  if (TEXT_LIKE.test(field(resource, 'mimeType') ?? '')) return Buffer.from(blob, 'base64').toString('utf8');
  return resourceLabel('resource', resource, base64Bytes(blob));
}

function contentText(content: ToolContent, passImages: boolean): string {
  const fields = content as Fields;
  switch (content.type) {
    case 'text':
      return field(fields, 'text') ?? '';
    case 'image':
      return mediaPlaceholder(fields, passImages);
    case 'audio':
      return mediaPlaceholder(fields, false);
    case 'resource':
      return resourceText(fields);
    case 'resource_link':
      return resourceLabel('resource link', fields);
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

/**
 * One readable string for the model from a tool's MCP result, cut to `maxBytes` of UTF-8. The contents win over
 * `structuredContent` (servers are asked to mirror it as text, so both would say the same twice); a result with
 * no contents reads as its `structuredContent` JSON. A failed (`isError`) result reads as a tool error.
 */
export function resultText(result: CallToolResult, maxBytes: number, passImages = false): string {
  const content = result.content ?? [];
  const text =
    content.length === 0 && result.structuredContent !== undefined
      ? JSON.stringify(result.structuredContent)
      : content.map((block) => contentText(block, passImages)).join('\n');
  return truncateUtf8(result.isError ? toolErrorText(text) : text, maxBytes);
}

/** The result's images, for a vision model to see in the next turn (`passImages`). */
export function resultImages(result: CallToolResult): ToolImage[] {
  return (result.content ?? []).flatMap((block) => {
    const fields = block as Fields;
    const data = field(fields, 'data');
    const mimeType = field(fields, 'mimeType');
    return block.type === 'image' && data && mimeType ? [{ mimeType, data }] : [];
  });
}
