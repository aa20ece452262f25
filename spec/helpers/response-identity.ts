import type { ResponseIdentity } from '../../lib/wire/responses/answer';

/** The Responses loop `resp_loop` the Responses wire's answer specs write for: a client that chained on nothing. */
export const responseIdentity: ResponseIdentity = {
  id: 'resp_loop',
  createdAt: 1700000000,
  model: 'agent',
  binding: 'notes',
  tools: [],
  previousResponseId: null,
};
