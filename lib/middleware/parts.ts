import type { Request } from 'express';
import { activateBindings, type Bindings } from '../binding/binding';
import { markerTrust } from '../self-call/marker';
import { hasSharedSecret, tokenSecret } from '../shared/signed-token';
import { LiveJudge } from '../judge/live-judge';
import { createJudgeRunner } from '../judge/runner';
import { defaultLogger } from '../shared/logger';
import type { Store } from '../store/store';
import { refuseClusterWithoutSecret } from '../self-call/cluster';
import { refusePlaceholderSecret } from '../options/placeholder-secret';
import { AnswerLedger } from '../person/ledger';
import { openStore } from '../store/options';
import type { FleetLoops } from '../telemetry/fleet-loops';
import { KeyBudget } from '../store/key-budget';
import { SharedSettings } from '../options/shared-settings';
import { replicaOf } from '../store/replica';
import { ApprovalTokens } from '../person/approval';
import { InputTokens } from '../person/input';
import { AnswerIds } from '../hand-back/answer-ids';
import { Continuations } from '../hand-back/continuation';
import { InFlightLoops } from '../loop/in-flight';
import { SelfCaller } from '../loop/self-caller';
import type { LoopServices } from '../loop/setup';
import type { LoopRecorder } from '../telemetry/loop-records';
import { Telemetry } from '../telemetry/loop-telemetry';
import type { Config } from '../options/agent-loop';
import { settingsOf } from '../options/tunables';
import { LiveSettings } from '../options/live-settings';
import type { Logger, Trellis } from '../types';
import { JUDGE_WIRE } from '../wire/wires';
import { SignIns } from '../trellis/oauth/sign-ins';

/** What one agentLoop() holds, made once at factory time and shared by its handler and its methods. */
export interface Parts {
  config: Config;
  logger: Logger;
  key: Buffer;
  owned: Trellis[];
  telemetry: Telemetry | undefined;
  store: Store;
  signIns: SignIns;
  bindings: Bindings;
  servesApp: (req: Request) => void;
  caller: SelfCaller;
  inFlight: InFlightLoops;
  settings: LiveSettings;
  replica: string;
  keyBudget: KeyBudget;
  judge: LiveJudge;
  continuations: Continuations;
  answerIds: AnswerIds;
  services: LoopServices;
  maxConcurrentLoops: number;
  warnedNoBody: boolean;
  admin: AdminParts;
}

/** The parts the loops' services are made of. */
type Made = Omit<Parts, 'admin' | 'maxConcurrentLoops' | 'warnedNoBody' | 'services'>;

/** Made by the first `admin()`. */
interface AdminParts {
  records?: LoopRecorder;
  loops?: FleetLoops;
}

/** The options checked, the store opened, the bindings activated: everything a request will need, in that order. */
export function assemble(config: Config): Parts {
  const opened = openedFor(config);
  const { logger, key, telemetry, store, bindings } = opened;
  const servesApp = markerTrust(key);
  const caller = new SelfCaller(
    key,
    config.forwardHeaders.map((name) => name.toLowerCase()),
    config.maxReplyBytes,
    config.selfUrl,
    config.selfCall,
  );
  const inFlight = new InFlightLoops();
  const settings = new LiveSettings(settingsOf(config), bindings, logger);
  const replica = replicaOf(config.replicaName);
  const keyBudget = new KeyBudget(
    store,
    logger,
    telemetry?.metrics && (() => telemetry.metrics?.keyBudgetUnenforced()),
  );
  const admin: AdminParts = {};
  const judge = new LiveJudge(
    config.judge,
    (option) =>
      createJudgeRunner(option, logger, telemetry?.metrics, (loopId, verdict) =>
        admin.records?.verdict(loopId, verdict),
      ),
    logger,
  );
  if (config.store) shareSettings(config, opened, replica, settings, judge);
  const continuations = new Continuations(key, config.continuationTtlSec);
  const answerIds = new AnswerIds(config.store && { store, ttlMs: config.continuationTtlSec * 1000, logger });
  const made = {
    ...opened,
    servesApp,
    caller,
    inFlight,
    settings,
    replica,
    keyBudget,
    judge,
    continuations,
    answerIds,
  };
  const maxConcurrentLoops = config.maxConcurrentLoops ?? Infinity;
  return { ...made, admin, maxConcurrentLoops, warnedNoBody: false, services: servicesOf(made) };
}

/** The secrets refused or derived, the telemetry, the store and the bindings. */
function openedFor(config: Config) {
  refuseClusterWithoutSecret(config.internalSecret);
  refusePlaceholderSecret(config.internalSecret);
  const logger = config.logger ?? defaultLogger();
  const owned: Trellis[] = [];
  const key = tokenSecret(config.internalSecret);
  const telemetry = Telemetry.create(config);
  const store = openStore(
    config.store,
    logger,
    telemetry?.metrics && telemetry.metrics.storeCall.bind(telemetry.metrics),
  );
  const signIns = new SignIns(key, logger, store);
  const bindings = activateBindings(config, logger, owned, signIns);
  return { config, logger, owned, key, telemetry, store, signIns, bindings };
}

/** With a store, the live settings and the judge's rules are the fleet's: a change on one replica reaches all. */
function shareSettings(
  config: Config,
  { telemetry, store, key, logger }: ReturnType<typeof openedFor>,
  replica: string,
  settings: LiveSettings,
  judge: LiveJudge,
): void {
  const refused = telemetry?.metrics && telemetry.metrics.storeChangeRefused.bind(telemetry.metrics);
  const secretShared = config.internalSecret !== undefined || hasSharedSecret;
  new SharedSettings({ store, replica, secret: key, secretShared, settings, judge, logger, refused });
}

/** What every loop this middleware starts is given. */
function servicesOf(parts: Made): LoopServices {
  const { config, key, store, settings, judge } = parts;
  return {
    config,
    caller: parts.caller,
    continuations: parts.continuations,
    answerIds: parts.answerIds,
    logger: parts.logger,
    settings: () => settings.current,
    get judge() {
      return judge.runner;
    },
    approvals: {
      tool: config.approval.tool,
      tokens: new ApprovalTokens(key, config.approval.ttlSec),
      ledger: new AnswerLedger(store, config.approval.ttlSec),
      input: {
        tool: config.input.tool,
        maxRounds: config.input.maxRounds,
        tokens: new InputTokens(key, config.input.ttlSec),
        ledger: new AnswerLedger(store, config.input.ttlSec),
      },
    },
    judgeWire: JUDGE_WIRE,
    telemetry: parts.telemetry,
    keyBudget: parts.keyBudget,
    shutdown: parts.inFlight.shutdownSignal,
  };
}
