/**
 * What every part of a daemon shares, made once in wiring.ts: the conversation's config, its side of the bus,
 * the log, the turn rules, the typist, the loop's wake-up, and whether it only answers requests (oneshot).
 * A part names the fields it uses (`Uses<'config' | 'log'>`) and narrows `bus` to the calls it makes, so a
 * test fakes only those.
 */
import type { DeliveryBus } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import type { Rules } from '../core/turns.js';
import type { Logger } from '../lib/log.js';
import type { Typist } from '../terminal/typist.js';

export interface DaemonContext {
  config: Config;
  bus: DeliveryBus;
  log: Logger;
  rules: Rules;
  typist: Typist;
  /** No daemon runs: a command answers its own request and stops (outages are not reported). */
  oneshot: boolean;
  /** Ask the loop for a pass at most `ms` from now. */
  wakeIn(ms: number): void;
}

export type Uses<K extends keyof DaemonContext> = Pick<DaemonContext, K>;
