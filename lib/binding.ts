import type { Request } from 'express';
import { globToRegExp } from './glob';
import type { ActiveBinding } from './loop/context';
import type { BindingMatch, Logger } from './types';

type Matcher = (req: Request, model: unknown) => boolean;

function matcherOf(match: BindingMatch | ((req: Request) => boolean), name: string, logger: Logger): Matcher {
  if (typeof match === 'function') {
    return function matchByFunction(req) {
      try {
        return match(req) === true;
      } catch (error) {
        logger.error('agent-loop binding match function threw; treating as no match', { binding: name, reason: (error as Error).message });
        return false;
      }
    };
  }
  const models = match.model === undefined ? undefined : [match.model].flat().map(globToRegExp);
  const headers = Object.entries(match.header ?? {}).map(([header, value]) => [header.toLowerCase(), globToRegExp(value)] as const);
  return function matchByModelAndHeader(req, model) {
    if (models && !(typeof model === 'string' && models.some((glob) => glob.test(model)))) return false;
    return headers.every(([header, glob]) => {
      const value = req.headers[header];
      return typeof value === 'string' && glob.test(value);
    });
  };
}

/** Bindings in the order given: the first that matches the request applies. */
export class Bindings {
  private readonly rules: { binding: ActiveBinding; matches: Matcher }[];

  constructor(entries: { binding: ActiveBinding; match: BindingMatch | ((req: Request) => boolean) }[], logger: Logger) {
    this.rules = entries.map(({ binding, match }) => ({ binding, matches: matcherOf(match, binding.name, logger) }));
  }

  resolve(req: Request, model: unknown): ActiveBinding | undefined {
    return this.rules.find((rule) => rule.matches(req, model))?.binding;
  }

  get all(): ActiveBinding[] {
    return this.rules.map((rule) => rule.binding);
  }
}
