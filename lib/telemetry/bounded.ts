/**
 * Span names are indexed and grouped by every tracing backend: a name the client or the model chose stays short and
 * plain.
 */
export const MAX_NAME_PART = 64;
/** Attributes keep the whole value, within reason: a model name or tool call id of megabytes is cut. */
export const MAX_ATTRIBUTE = 256;

const UNUSUAL = /[^A-Za-z0-9._:/@+-]/g;

/** A client's model name or a model's tool name as the part of a span name after the operation. */
export function namePart(value: string): string {
  return value.slice(0, MAX_NAME_PART).replace(UNUSUAL, '_');
}

export function boundedAttribute<T>(value: T): T | string {
  return typeof value === 'string' && value.length > MAX_ATTRIBUTE ? value.slice(0, MAX_ATTRIBUTE) : value;
}
