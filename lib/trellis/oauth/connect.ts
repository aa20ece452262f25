import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import { presentedCredential } from '../../shared/client-identity';
import { sign, verify, type Purpose } from '../../shared/signed-token';
import { FLOW_TTL_MS, readFlow, type Flow } from './flow-state';
import type { OAuthUser } from './options';
import { named } from './user';

/**
 * The consent link is the gateway's own page, `<redirectUrl>/connect?state=...`: it shows whose account is being
 * linked, and only its confirm button (a same-origin POST) sets the cookie the callback requires and sends the browser
 * on to the authorization server. A link opened in someone else's browser links nothing unless that person reads the
 * page and confirms; an authorization URL passed on without the page lands at a callback with no cookie.
 */

const escaped = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE_STYLE = 'font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem';

/** The small page the person sees in the browser; `action`: a confirm button posting there. */
export function page(title: string, message: string, action?: { url: string; label: string }): string {
  const button = action
    ? `<form method="post" action="${escaped(action.url)}">` +
      `<button type="submit">${escaped(action.label)}</button></form>`
    : '';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
    `<title>${escaped(title)}</title></head>` +
    `<body style="${PAGE_STYLE}"><h1 style="font-size:1.4rem">${escaped(title)}</h1>` +
    `<p>${escaped(message)}</p>${button}</body></html>`
  );
}

export const refusal = (why: string) =>
  page(
    'Not connected',
    `The sign-in did not complete: ${why}. Nothing was stored; send your message again for a new link.`,
  );

/** The link the person is given: the confirmation page beside the callback. */
export function connectUrl(redirectUrl: string, state: string): string {
  const url = new URL(redirectUrl);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/connect`;
  url.search = '';
  url.searchParams.set('state', state);
  return url.toString();
}

/** Where the confirmed browser goes: the authorization request, with the flow's state. */
export function authorizationUrl(flow: Flow, state: string): string {
  const url = new URL(flow.authorization);
  url.searchParams.set('state', state);
  return url.toString();
}

/** Who the page says is being linked: the name `oauth.user` gives, or the client key by its last characters. */
export function whoOf(req: IncomingMessage, option: OAuthUser | undefined): string {
  if (option !== undefined) return named(option, req)?.slice(0, 80) ?? 'this gateway user';
  const presented = presentedCredential(req);
  const key = ('credential' in presented ? presented.credential : undefined) ?? '';
  return key.length >= 16 ? `the client whose key ends in …${key.slice(-4)}` : 'this gateway client';
}

const cookiePurpose: Purpose = { kind: 'oauth-state', context: 'confirmed in this browser' };
const cookieName = (flow: Flow) => `agent_loop_consent_${flow.nonce}`;

function cookie(flow: Flow, redirectUrl: string, value: string, maxAgeSec: number): string {
  const { pathname, protocol } = new URL(redirectUrl);
  const secure = protocol === 'https:' ? '; Secure' : '';
  return `${cookieName(flow)}=${value}; Path=${pathname}; Max-Age=${maxAgeSec}; HttpOnly; SameSite=Lax${secure}`;
}

/** Whether this browser confirmed the flow on the gateway's page. */
export function confirmedHere(req: IncomingMessage, key: Buffer, flow: Flow): boolean {
  const sent = (req.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([name]) => name === cookieName(flow))?.[1];
  if (sent === undefined) return false;
  const verified = verify(key, cookiePurpose, sent);
  return 'payload' in verified && verified.payload === flow.nonce;
}

/** The callback took the flow: its cookie is of no more use. */
export const forgetConfirmation = (res: Response, flow: Flow, redirectUrl: string) =>
  res.append('set-cookie', cookie(flow, redirectUrl, '', 0));

/** A POST from another site (a form that confirms for the person) is refused; a browser says where it came from. */
const sameOrigin = (req: Request, redirectUrl: string) =>
  req.headers['sec-fetch-site'] === 'same-origin' || req.headers.origin === new URL(redirectUrl).origin;

/** The confirmation page (GET) and its button (POST): the cookie set, the browser sent to the authorization server. */
export function serveConnect(req: Request, res: Response, key: Buffer, redirectUrl: string): void {
  res.setHeader('cache-control', 'no-store');
  const state = typeof req.query.state === 'string' ? req.query.state : '';
  const opened = readFlow(key, state);
  if (!('flow' in opened))
    return void res
      .status(400)
      .type('html')
      .send(refusal(`the state is ${opened.failed}`));
  const { flow } = opened;
  if (req.method === 'GET') {
    const message =
      `This links your account at ${flow.server} to ${flow.label} of this gateway: ` +
      `its loops will call ${flow.server} as you. ` +
      'Continue only if you asked for this link yourself; if someone sent it to you, close this page.';
    const action = { url: connectUrl(redirectUrl, state), label: 'Continue to sign in' };
    return void res
      .status(200)
      .type('html')
      .send(page(`Connect ${flow.server}?`, message, action));
  }
  if (!sameOrigin(req, redirectUrl))
    return void res.status(403).type('html').send(refusal('the confirmation did not come from the gateway’s page'));
  res.append(
    'set-cookie',
    cookie(flow, redirectUrl, sign(key, cookiePurpose, flow.nonce, Date.now() + FLOW_TTL_MS), FLOW_TTL_MS / 1000),
  );
  res.redirect(303, authorizationUrl(flow, state));
}
