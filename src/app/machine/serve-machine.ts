/**
 * The machine's daemon (`baton daemon --machine`, started by `baton up`): one process serving every conversation
 * in the registry (registry.ts, read every half second). Each conversation is a daemon/serve.ts Service; they
 * share one tmux control client per tmux server (at 30 busy conversations one process made 2.6× the turns/s of
 * one per conversation). One that cannot be served is logged and skipped until its entry changes; with nothing
 * left it exits, unless --stay. docs/decisions/0004-one-process-many-conversations.md.
 */
import { FolderGone } from '../../bus/anchor.js';
import { LeaseHeldError } from '../../bus/bus.js';
import { explainBusError } from '../../bus/open.js';
import { loadConfig } from '../../config/load.js';
import { Service } from '../../daemon/serve.js';
import type { Logger } from '../../lib/log.js';
import { Tmux } from '../../terminal/tmux.js';
import { DATABASE_ENV } from '../pane-env.js';
import { databaseEnvHash, takeMachineLock } from './daemon-lock.js';
import { type Entry, keyOf, readRegistry, registryFile, unreadableLine } from './registry.js';
import { bringBack } from './bring-back.js';
import { servedWriter } from './served.js';
import { linkFor } from './dashboard.js';

interface Served {
  entry: Entry;
  service: Service;
  done: Promise<number>;
}

/** Served again only when what it runs on changed: its config file or its tmux server. */
const same = (a: Entry, b: Entry) => a.config === b.config && a.tmux === b.tmux && a.home === b.home;

/** Why a conversation's Service stopped on its own, by its exit code (daemon/serve.ts; the log says more). */
const STOPPED: Record<number, string> = {
  1: "it stopped on an error (the machine daemon's log says which)",
  2: 'its config does not load',
  3: 'another daemon holds its lease',
};

/** Why it stopped, for served.json: the error's own line when it threw (a lease held names its holder). */
const stoppedBy = (code: number, why: string | null): string =>
  why === null ? (STOPPED[code] ?? STOPPED[1]!) : code === 3 ? why : `it stopped: ${why}`;

export class MachineDaemon {
  private readonly served = new Map<string, Served>();
  /** Conversations that could not be served, by key, and why: skipped until their entry changes. */
  private readonly skipped = new Map<string, { entry: Entry; problem: string }>();
  private readonly publish: ReturnType<typeof servedWriter>;
  private readonly tmuxes = new Map<string, Tmux>();
  private stopping: string | null = null;
  private wake: (() => void) | null = null;
  private lastProblem = '';
  /** Its first look at the registry: the conversations that were running when the machine went down. */
  private starting = true;

  constructor(
    private readonly dir: string,
    private readonly log: Logger,
    /** `agents`: bring back the agents of each conversation it serves from its start (after a reboot: bring-back.ts). */
    private readonly opts: { stay: boolean; pollMs?: number; agents?: boolean },
  ) {
    this.publish = servedWriter(dir);
  }

  stop(reason: string): void {
    this.stopping ??= reason;
    this.wake?.();
  }

  /** Resolves with the exit code once it has stopped: 3 when another machine daemon runs. */
  async run(): Promise<number> {
    const lock = await takeMachineLock(this.dir, {
      stay: this.opts.stay,
      databaseEnv: databaseEnvHash(DATABASE_ENV),
      onLost: (why) => {
        this.log.error(`${why}; stopping so two machine daemons never serve at once`);
        this.stop('lost its lock');
      },
    });
    if (!lock.ok) {
      this.log.error(lock.why);
      return 3;
    }
    this.log.info(`the machine's daemon serves the conversations listed in ${this.dir}/conversations.json`);
    try {
      while (!this.stopping) {
        this.sync();
        await this.publish({
          pid: process.pid,
          serving: [...this.served.keys()],
          skipped: [...this.skipped].map(([key, s]) => ({ key, problem: s.problem })),
          entries: [...this.served.values(), ...this.skipped.values()].map((s) => s.entry),
        }).catch((err: unknown) => this.log.warn(`cannot write served.json: ${(err as Error).message}`));
        // One it skipped keeps it: served.json is where `ls` and `status` read why (a project moved away, a
        // config broken), and only a live daemon's word counts. `up` there or `down` of it ends that.
        if (!this.opts.stay && this.served.size === 0 && this.skipped.size === 0) {
          this.log.info('it serves no conversation: exiting');
          break;
        }
        // One timer per poll, cut short by stop(): an idle daemon wakes twice a second, not ten times.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.opts.pollMs ?? 500);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    } finally {
      const reason = this.stopping ?? 'nothing to serve';
      for (const s of this.served.values()) s.service.stop(reason);
      await Promise.all([...this.served.values()].map((s) => s.done));
      for (const t of this.tmuxes.values()) t.close();
      await lock.release();
    }
    return 0;
  }

  /** Match what runs to the registry: take on the new, let go of the removed. */
  private sync(): void {
    const read = readRegistry(this.dir);
    if (!read.ok && read.problem !== this.lastProblem)
      this.log.error(
        `${unreadableLine(read.problem)} — it serves on the ${this.served.size} conversation(s) it served, ` +
          'and takes on or lets go of none until the file reads again',
      );
    else if (read.ok && this.lastProblem) this.log.info(`${registryFile(this.dir)} reads again`);
    this.lastProblem = read.ok ? '' : read.problem;
    if (!read.ok) return; // never let go of everything for a file it cannot read
    const wanted = new Map(read.registry.conversations.map((e) => [keyOf(e), e]));
    for (const [key, s] of this.served) {
      const now = wanted.get(key);
      if (!now || !same(now, s.entry)) s.service.stop(now ? 'its tmux server or config changed' : 'let go');
    }
    for (const [key, entry] of wanted) {
      const skipped = this.skipped.get(key);
      if (this.served.has(key) || (skipped && skipped.entry.added_at === entry.added_at)) continue;
      this.skipped.delete(key);
      this.take(key, entry);
    }
    for (const key of this.skipped.keys()) if (!wanted.has(key)) this.skipped.delete(key);
    this.starting = false;
  }

  private take(key: string, entry: Entry): void {
    const label = entry.config ?? entry.home;
    const folder = label.replace(/\/config\.json$/, '');
    const log = this.log.withTag(folder.split('/').pop() || label);
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig({ file: entry.config, baseDir: entry.home }, { fallback: 'default' });
    } catch (err) {
      // One line (served.json, ls): a config error's detail is on the lines after its first.
      const lines = (err as Error).message.split('\n').map((l) => l.trim());
      const problem = lines.filter(Boolean).join('; ').slice(0, 400);
      log.error(`${label}: skipped (${problem}); "baton up" there tries again`);
      this.skipped.set(key, { entry, problem });
      return;
    }
    const tmux = this.tmuxOf(entry.tmux);
    const service = new Service([config], log, {
      tmux,
      serves: this.served.size + 1,
      dashboard: () => linkFor(this.dir, key, config),
    });
    log.info(`serving ${label}`);
    // Taken on at its start (a reboot, a crash of the service): its agents too, with --agents.
    const back =
      this.opts.agents && this.starting
        ? bringBack(config, tmux, log).then(
            (not) => void (not && log.info(`${label}: its agents are not brought back: ${not}`)),
            (err: unknown) => log.warn(`${label}: its agents could not be brought back: ${String(err)}`),
          )
        : Promise.resolve();
    // What stopped it, in one line for served.json: a folder gone (ENOTDIR), the lease's holder, the database's word.
    let why: string | null = null;
    const done = back
      .then(() => service.run())
      .catch((err: unknown) => {
        // (A folder gone says itself what brings it back.)
        const until = err instanceof FolderGone ? '' : '; skipped until "baton up" there';
        log.error(`${label}: ${err instanceof Error ? err.message : String(err)}${until}`);
        const said = explainBusError(err) ?? (err instanceof Error ? err.message : String(err));
        why = said.split('\n')[0]!.slice(0, 400);
        return err instanceof LeaseHeldError ? 3 : 1;
      });
    const served: Served = { entry, service, done };
    this.served.set(key, served);
    void done.then((code) => {
      if (this.served.get(key) === served) this.served.delete(key);
      // Stopped on its own (its lease held elsewhere, its store changed): not taken again until its entry changes.
      // (A registry that does not read keeps what it listed: the entry is taken as still there.)
      const now = readRegistry(this.dir);
      if (code !== 0 && !this.stopping && (!now.ok || now.registry.conversations.some((e) => same(e, entry))))
        this.skipped.set(key, { entry, problem: stoppedBy(code, why) });
    });
  }

  private tmuxOf(socketPath: string | null): Tmux {
    const key = socketPath ?? '';
    let t = this.tmuxes.get(key);
    if (!t) this.tmuxes.set(key, (t = new Tmux({ control: true, ...(socketPath ? { socketPath } : {}) })));
    return t;
  }
}
