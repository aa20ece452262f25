/** A JSON object's fields, as read from a body the loop did not write. */
export type Fields = Record<string, unknown>;

/** A JSON object (not null, not a list). */
export const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
