import type { Request, Response } from 'express';
import { ConsentRequired, consentNote } from '../trellis/oauth/consent';
import type { ActiveBinding } from '../loop/context';
import { setStop } from '../shared/stop';
import { SIGN_IN } from './question';

export type SignedIn = { binding: ActiveBinding } | { consent: ConsentRequired };

/**
 * The binding as the request's user sees it: their own Trellis and tool list, when its server needs users to sign
 * in; or, before they did, the consent the loop answers with (the model is not called blindly). Listing the tools on
 * the user's connection is what asks the server; any other failure is the catalog's to report.
 */
export async function signedIn(binding: ActiveBinding, req: Request, signal: AbortSignal): Promise<SignedIn> {
  const trellis = binding.trellis.forRequest?.(req);
  if (!trellis || trellis === binding.trellis) return { binding };
  try {
    await trellis.listTools(signal);
  } catch (error) {
    if (error instanceof ConsentRequired) return { consent: error };
  }
  return { binding: { ...binding, trellis, catalog: binding.catalog.forTrellis(trellis) } };
}

/** The headers of an answer that asks for consent; a stream already open carries the link in its text alone. */
export function consentHeaders(res: Response, consent: ConsentRequired): string {
  if (!res.headersSent) {
    setStop(res, SIGN_IN.stop);
    res.setHeader('x-agent-loop-authorize', consent.url);
  }
  return consentNote(consent);
}
