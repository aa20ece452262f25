import type { Request } from 'express';
import { AgentLoopError } from '../errors';
import { globToRegExp } from '../shared/glob';
import { Hierarchy } from '../trellis/hierarchy';
import type { ActiveBinding } from '../loop/context';
import { defaultOf } from '../options/declaration';
import { bindingOptions } from './options';
import type { Config } from '../options/agent-loop';
import { bindingSettingsOf, type BindingSettings } from '../options/tunables';
import { toolSearchOf } from '../tool-search/options';
import { codeModeOf } from '../code-mode/options';
import { ToolCatalog, type HierarchySource } from '../trellis/catalog';
import { trellisResolver } from '../trellis/resolve';
import type { SignIns } from '../trellis/oauth/sign-ins';
import { WEB_SEARCH_TOOL, openWebSearch } from '../trellis/web-search';
import type { BindingMatch, Logger, Trellis } from '../types';
import type { WireRequest } from '../loop/wire';

type Matcher = (req: Request, model: unknown) => boolean;

function matcherOf(match: BindingMatch | ((req: Request) => boolean), name: string, logger: Logger): Matcher {
  if (typeof match === 'function') {
    return function matchByFunction(req) {
      try {
        return match(req) === true;
      } catch (error) {
        logger.error('agent-loop binding match function threw; treating as no match', {
          binding: name,
          reason: (error as Error).message,
        });
        return false;
      }
    };
  }
  const models = match.model === undefined ? undefined : [match.model].flat().map(globToRegExp);
  const headers = Object.entries(match.header ?? {}).map(
    ([header, value]) => [header.toLowerCase(), globToRegExp(value)] as const,
  );
  return function matchByModelAndHeader(req, model) {
    if (models && !(typeof model === 'string' && models.some((glob) => glob.test(model)))) return false;
    return headers.every(([header, glob]) => {
      const value = req.headers[header];
      return typeof value === 'string' && glob.test(value);
    });
  };
}

/**
 * Bindings in the order given: the first that matches the request applies; else the web_search-only loop, if asked for.
 */
export class Bindings {
  private readonly rules: {
    binding: ActiveBinding;
    match: BindingMatch | ((req: Request) => boolean);
    matches: Matcher;
  }[];

  constructor(
    entries: { binding: ActiveBinding; match: BindingMatch | ((req: Request) => boolean) }[],
    logger: Logger,
    private readonly webSearch?: { binding: ActiveBinding; always: boolean },
  ) {
    this.rules = entries.map(({ binding, match }) => ({
      binding,
      match,
      matches: matcherOf(match, binding.name, logger),
    }));
  }

  /** the configured bindings with what they match, in order (the web_search-only loop is not one) */
  get configured(): { binding: ActiveBinding; match: BindingMatch | 'a function' }[] {
    return this.rules.map(({ binding, match }) => ({
      binding,
      match: typeof match === 'function' ? 'a function' : match,
    }));
  }

  /** each configured binding's run-time settings, by name */
  settings(): Record<string, BindingSettings> {
    return Object.fromEntries(this.rules.map(({ binding }) => [binding.name, bindingSettingsOf(binding)]));
  }

  /** Loops from now on get the new values; a loop in flight holds the binding it started with, and keeps its values. */
  tune(name: string, values: BindingSettings): void {
    const rule = this.rules.find((candidate) => candidate.binding.name === name);
    if (rule) rule.binding = { ...rule.binding, ...values };
  }

  /** every binding, the web_search-only loop's included */
  get all(): ActiveBinding[] {
    const bound = this.rules.map((rule) => rule.binding);
    return this.webSearch ? [...bound, this.webSearch.binding] : bound;
  }

  /** the binding of a request asking for `model` (its wire says where the request names it) */
  resolve(req: Request, body: WireRequest, model: unknown): ActiveBinding | undefined {
    const bound = this.rules.find((rule) => rule.matches(req, model))?.binding;
    if (bound || !this.webSearch) return bound;
    return this.webSearch.always || body.web_search_options !== undefined ? this.webSearch.binding : undefined;
  }

  /** The web_search-only loop fulfils `web_search_options` itself, so the model is not asked to. */
  bodyFor(binding: ActiveBinding, body: WireRequest): WireRequest {
    if (binding !== this.webSearch?.binding) return body;
    const { web_search_options: _fulfilled, ...rest } = body;
    return rest;
  }
}

/**
 * Lists the tools right away (without waiting) so that hierarchy names Trellis lacks are warned of at start-up;
 * not where each user lists their own.
 */
function activeBinding(
  name: string,
  hierarchy: HierarchySource,
  trellis: Trellis,
  logger: Logger,
  tuning: Omit<ActiveBinding, 'name' | 'trellis' | 'catalog'>,
): ActiveBinding {
  const catalog = new ToolCatalog(trellis, hierarchy, name, logger);
  if (!trellis.forRequest) void catalog.tools();
  return { name, trellis, catalog, ...tuning };
}

/** A tool given more time than the whole loop has would be cut by the total budget all the same: refused. */
function checkToolTimeouts(
  index: number,
  toolTimeouts: Record<string, number> | undefined,
  totalBudgetSec: number,
): void {
  for (const [tool, seconds] of Object.entries(toolTimeouts ?? {})) {
    if (seconds <= totalBudgetSec) continue;
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      `agentLoop: option 'bindings[${index}].toolTimeouts.${tool}' is ${seconds}, above totalBudgetSec ` +
        `(${totalBudgetSec}), which would cut the call first; give it at most ${totalBudgetSec}, or raise ` +
        `totalBudgetSec to ${seconds}.`,
    );
  }
}

/** Makes every binding ready at start-up; Trellis instances the options describe (rather than pass) go to `owned`. */
export function activateBindings(valid: Config, logger: Logger, owned: Trellis[], signIns?: SignIns): Bindings {
  const trellisOf = trellisResolver(logger, owned, signIns);
  const shared = valid.trellis && trellisOf(valid.trellis);
  const entries = valid.bindings.map((spec, i) => {
    const trellis = spec.trellis ? trellisOf(spec.trellis) : shared;
    if (!trellis) {
      throw new AgentLoopError(
        'ERR_AGENT_LOOP_NO_TRELLIS',
        `agentLoop: option 'bindings[${i}].trellis' is missing and so is 'trellis'; ` +
          `binding '${spec.name}' needs tools: set trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp' } }.`,
      );
    }
    const { maxTurns, toolTimeoutSec, toolTimeouts, resetTimeoutOnProgress, requireApproval } = spec;
    const codeMode = codeModeOf(spec.codeMode);
    checkToolTimeouts(i, toolTimeouts, valid.totalBudgetSec);
    const toolSearch = toolSearchOf(valid.toolSearch, spec.toolSearch);
    return {
      binding: activeBinding(spec.name, spec.hierarchy, trellis, logger, {
        maxTurns,
        toolTimeoutSec,
        ...(toolTimeouts ? { toolTimeouts } : {}),
        resetTimeoutOnProgress,
        requireApproval,
        toolSearch,
        ...(codeMode ? { codeMode } : {}),
      }),
      match: spec.match,
    };
  });
  const search = valid.webSearch && {
    always: valid.webSearch.always === true,
    binding: activeBinding(
      WEB_SEARCH_TOOL.name,
      new Hierarchy([WEB_SEARCH_TOOL.name]),
      openWebSearch(valid.webSearch),
      logger,
      { toolTimeoutSec: defaultOf(bindingOptions.toolTimeoutSec), requireApproval: 'never', toolSearch: false },
    ),
  };
  return new Bindings(entries, logger, search);
}
