import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Bindings } from '../binding/binding';
import { AgentLoopError } from '../errors';
import type { LiveJudge } from '../judge/live-judge';
import type { ActiveBinding } from '../loop/context';
import type { LiveSettings } from '../options/live-settings';
import { bindingSettingsOf, NUMBER_FIELDS } from '../options/tunables';
import type { FleetLoops } from '../telemetry/fleet-loops';
import type { KeyBudget } from '../store/key-budget';
import { apiError } from '../shared/openai-error';
import type { TokenVault } from '../trellis/oauth/vault';

/** What the admin API reads and changes: one agentLoop's run-time state. */
export interface AdminSubject {
  settings: LiveSettings;
  bindings: Bindings;
  judge: LiveJudge;
  loops: FleetLoops;
  budgets: KeyBudget;
  captureContent: boolean;
  /** the users' OAuth tokens (what they are for, never the tokens) */
  tokens: TokenVault;
}

const LISTING_TIMEOUT_MS = 5000;

/** The Trellis behind a binding as an operator needs it: has it listed, is it failing now, and why. */
function trellisState({ catalog, trellis }: ActiveBinding) {
  const session = trellis.mcpSession?.();
  const sessionField = session === undefined ? {} : { mcpSession: session };
  if (catalog.unlisted !== undefined) return { state: 'unlisted', reason: catalog.unlisted, ...sessionField };
  if (catalog.listingFailure !== undefined)
    return { state: 'failing', reason: catalog.listingFailure, ...sessionField };
  return { state: 'ok', ...sessionField };
}

async function bindingView(binding: ActiveBinding, match: unknown) {
  const tools = await binding.catalog.tools(AbortSignal.timeout(LISTING_TIMEOUT_MS));
  return {
    name: binding.name,
    match,
    // the web_search-only loop has no maxTurns of its own (null): it runs defaultMaxTurns
    ...Object.fromEntries(Object.entries(bindingSettingsOf(binding)).map(([name, value]) => [name, value ?? null])),
    tools: tools.map(({ name, description }) => ({
      name,
      ...(description === undefined ? {} : { description }),
    })),
    trellis: trellisState(binding),
  };
}

/**
 * A handler whose failure is an answer: a coded error is the caller's (400; 409 for a judge without rules), anything
 * else goes on to Express.
 */
function answering(handler: (req: Request, res: Response) => unknown) {
  return function adminRoute(req: Request, res: Response, next: NextFunction): void {
    Promise.resolve()
      .then(() => handler(req, res))
      .then((body) => res.json(body))
      .catch((error: unknown) => {
        if (!(error instanceof AgentLoopError)) return next(error);
        apiError(res, error.code === 'ERR_AGENT_LOOP_NOT_A_RULES_JUDGE' ? 409 : 400, error.message, error.code);
      });
  };
}

/** The body of a PATCH or PUT: a JSON object, else a 400 saying so. */
function jsonObject(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new AgentLoopError(
    'ERR_AGENT_LOOP_INVALID_REQUEST',
    'admin API: the body must be a JSON object sent with content-type: application/json, ' +
      `e.g. ${req.path.endsWith('rules') ? '{ "rules": [] }' : '{ "totalBudgetSec": 60 }'}.`,
  );
}

const sourceOf = (req: Request) => `admin API (${req.ip})`;

/**
 * `/settings` (and its form's `/settings/fields`), `/bindings`, `/judge/rules`, `/loops`: JSON, behind the admin key.
 */
export function adminApi(subject: AdminSubject): Router {
  const api = express.Router();
  api.use(function noStore(_req, res, next) {
    res.setHeader('cache-control', 'no-store');
    next();
  });
  api.use(express.json({ limit: '1mb' }));
  api.get(
    '/settings',
    answering(() => subject.settings.get()),
  );
  api.get(
    '/settings/fields',
    answering(() => NUMBER_FIELDS),
  );
  api.patch(
    '/settings',
    answering((req) => subject.settings.update(jsonObject(req), sourceOf(req))),
  );
  api.get(
    '/bindings',
    answering(() => bindingsView(subject)),
  );
  api.get(
    '/judge/rules',
    answering(() => subject.judge.view()),
  );
  api.put(
    '/judge/rules',
    answering((req) => subject.judge.replaceRules(jsonObject(req).rules, sourceOf(req))),
  );
  api.get(
    '/loops',
    answering(async () => ({ captureContent: subject.captureContent, ...(await subject.loops.snapshot()) })),
  );
  api.get(
    '/key-budget',
    answering(() => keyBudgetView(subject)),
  );
  api.get(
    '/oauth',
    answering(async () => ({ tokens: await subject.tokens.list() })),
  );
  api.delete('/oauth/:server/:user', forgetTokens(subject));
  api.use(unknownRoute);
  return api;
}

async function bindingsView(subject: AdminSubject) {
  const matches = new Map(subject.bindings.configured.map(({ binding, match }) => [binding.name, match]));
  return {
    bindings: await Promise.all(
      subject.bindings.all.map((binding) =>
        bindingView(binding, matches.get(binding.name) ?? 'web_search_options in the request'),
      ),
    ),
  };
}

async function keyBudgetView(subject: AdminSubject) {
  const budget = subject.settings.current.keyBudget;
  if (!budget) return { tokens: null, windowSec: null, keys: [] };
  // while the store is away nobody can say what the fleet spent: null, not a wrong zero
  return { ...budget, keys: await subject.budgets.keys(budget).catch(() => null) };
}

function forgetTokens(subject: AdminSubject): RequestHandler {
  return async function forgetTokens(req, res, next) {
    const { server, user } = req.params as { server: string; user: string };
    try {
      if (await subject.tokens.forget(server, user)) return void res.json({ forgotten: { server, user } });
      apiError(
        res,
        404,
        `admin API: no OAuth tokens of user '${user}' for server '${server}'; GET oauth lists them`,
        'not_found',
      );
    } catch (error) {
      next(error);
    }
  };
}

function unknownRoute(req: Request, res: Response): void {
  apiError(
    res,
    404,
    `admin API: no route ${req.method} ${req.originalUrl}; routes: GET/PATCH settings, GET settings/fields, ` +
      `GET bindings, GET/PUT judge/rules, GET loops, GET key-budget, GET oauth, DELETE oauth/<server>/<user>`,
    'not_found',
  );
}
