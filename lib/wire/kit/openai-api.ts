import type { Wire } from '../../loop/wire';
import { modelInBody } from './model-in-body';
import { apiErrorBody, openAiError } from '../../shared/openai-error';

/** What OpenAI's two wires (chat completions and Responses) share: the API's headers, its key and its errors. */
export const openAiApi: Pick<Wire, 'modelOf' | 'upstreamHeaders' | 'apiKey' | 'rateLimited' | 'error'> = {
  modelOf: modelInBody,
  upstreamHeaders: ['openai-organization', 'openai-project'],
  apiKey: { header: 'authorization' },
  rateLimited: (message) => openAiError(message, 'tokens', { param: null, code: 'rate_limit_exceeded' }),
  error: (status, message, { param = null, code = null } = {}) => apiErrorBody(status, message, code, param),
};
