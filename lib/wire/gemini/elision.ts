import { elidedContent, type Elision } from '../kit/context-budget';
import { isObject } from '../../shared/fields';
import { partsOf } from './request';
import type { Content, Part } from './types';

/**
 * The functionResponse part with its `output` or `error` replaced by a placeholder naming the tool and its size (when
 * shorter).
 */
export function elidedResponse(part: Part): Part {
  const answer = part.functionResponse;
  if (!isObject(answer) || !isObject(answer.response)) return part;
  const { response } = answer;
  const key = 'output' in response ? 'output' : 'error';
  const elided = elidedContent(response[key], answer.name);
  return elided === response[key] ? part : { ...part, functionResponse: { ...answer, response: { [key]: elided } } };
}

/**
 * Gemini: a user content's functionResponse parts are the results (a response names its function, so no call needs
 * looking up), each elided where it stands, so every call keeps its answer; the last content is what the model is
 * about to read.
 */
export const elision: Elision<Content> = {
  wire: 'gemini',
  names: () => new Map(),
  latest: (contents) => contents.length - 1,
  elide(content) {
    if (content.role !== 'user') return undefined;
    const parts = partsOf(content);
    const elided = parts.map(elidedResponse);
    const results = elided.filter((part, i) => part !== parts[i]).length;
    return results === 0 ? undefined : { item: { ...content, parts: elided }, results };
  },
};
