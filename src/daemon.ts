/**
 * The daemon: the imperative shell around `decide()` (turns.ts). It watches every direction folder,
 * examines each file once per change, rejects bad ones, holds out-of-turn ones, and delivers one
 * message at a time.
 *
 * Delivery state machine (one message at a time; each arrow is one durable step):
 *
 *   INBOX ──rename to .claimed/<dir>/<id>/<name>──▶ CLAIMED ──archive/<id>.json (delivered_at: null)──▶
 *   ARCHIVED ──remove the claim; state.json (turn passes, counter = N)──▶ COMMITTED ──paste──▶ PASTED
 *   ──Enter──▶ TYPED ──submit confirmed──▶ CONFIRMED ──archive/<id>.json (delivered_at, confirmed)──▶ DELIVERED
 *
 * For kinds whose screen is read (claude), Enter is pressed only once the input box shows the paste,
 * and CONFIRMED means the box is empty again (one more Enter if the text is still there); a kind whose
 * screen is not read is confirmed "not_checked". Failures in these steps are retried (only the missing
 * step: Enter, or the look) with backoff, reported as `delivery_failed`, never stamped delivered.
 *
 * Killed in CLAIMED: no record exists for <id>; at start-up the file goes back to its inbox, same name.
 * Killed in ARCHIVED: state.json lags the archive by one; at start-up it is rebuilt from the last
 * record, the leftover claim is removed, and the message is typed (nothing was typed yet).
 * Killed in COMMITTED, PASTED, TYPED or CONFIRMED: the record has no delivered_at and the paste may have happened,
 * so the message is typed again with "(redelivered)" in its header and a `redelivered` event.
 * At rest a message is thus in exactly one of: its inbox, archive/, rejected/.
 */
import { lstat, readdir, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { archiveNew, archiveUpdate, readRecord, type ArchiveRecord } from './archive.js';
import { render, replyHint } from './compose.js';
import type { Config } from './config.js';
import { eventLog, type EventLog } from './events.js';
import { ensureDir, isErrno, makeDir, moveNoClobber, sweepTemps } from './fsx.js';
import { byName, examine, isCandidateName, listInbox, type Entry, type Examined, type Folder } from './inbox.js';
import { layout, type Layout } from './layout.js';
import { acquireLock, type Lock } from './lock.js';
import { log as defaultLog, type Logger } from './log.js';
import { isOurPaste } from './kinds.js';
import { confirmSubmit, enterDelay, findPane, paste, PasteError, pasteShown, submit, targetOf, typeText, whyNotReady, type Confirmation, type PaneInfo } from './pane.js';
import { quarantine, tidyRejected } from './rejected.js';
import { recover } from './recovery.js';
import { writeState, type State } from './state.js';
import { Tmux } from './tmux.js';
import { decide, type Decision, type Rules } from './turns.js';
import { endsWith, rulesFor } from './conversation.js';
import { dropStaleReplies, pendingRequests } from './requests.js';
import { Conductor } from './conductor.js';
import { Steering, type Stage } from './steering.js';

type Delivery = Extract<Decision, { action: 'deliver' }>;

interface Pending {
  record: ArchiveRecord;
  /** The text may already be in the pane (crash or timeout mid-paste): type it again, flagged. */
  maybeTyped: boolean;
  /** Pasted in this process, but Enter failed: only Enter is retried. */
  pastedAt: number | null;
  /** Enter was pressed: only the submit confirmation and the archive's delivered_at are left. */
  entered: boolean;
  /** How the submit was confirmed (kinds.ts); null until it is. */
  confirmed: Confirmation | null;
  /** The last failure reported for it, so a retry failing the same way is not logged again. */
  lastError: string | null;
  /** state.json says so (COMMITTED): until then nothing is typed, or a crash would hide the paste. */
  committed: boolean;
  firstSeen: number;
  /** When its turn came: firstSeen → turnSince was time held in the inbox, not delivery time. */
  turnSince: number;
}

export interface DaemonOptions {
  tmux?: Tmux;
  log?: Logger;
  /** How often folders are listed in full, to catch anything the watcher missed. */
  rescanMs?: number;
  /**
   * Answer the waiting requests (requests.ts) and stop: what a `baton end`/`send`/… does itself when
   * no daemon is running. Nothing is watched and no message is delivered.
   */
  oneshot?: boolean;
}

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];

export class Daemon {
  readonly layout: Layout;
  private readonly tmux: Tmux;
  private readonly log: Logger;
  private readonly rules: Rules;
  private readonly events: EventLog;
  private readonly folders: Folder[];
  private readonly byDir = new Map<string, Folder>();
  private state!: State;
  private pending: Pending | null = null;
  private lock: Lock | null = null;
  private watcher: FSWatcher | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private wakeAt = Infinity;
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  /** Agents whose pane is unavailable (logged once per outage). */
  private outages = new Set<string>();
  /** Failed attempts per receiver since its last success, for the backoff. */
  private attempts = new Map<string, number>();
  private stopped!: Promise<string>;
  private resolveStopped!: (reason: string) => void;
  /** A request file may be waiting in requests/. */
  private requestsWaiting = true;
  private readonly steering: Steering;
  private readonly conductor: Conductor;

  constructor(
    readonly config: Config,
    private readonly opts: DaemonOptions = {},
  ) {
    this.layout = layout(config);
    this.tmux = opts.tmux ?? new Tmux({ control: true });
    this.log = opts.log ?? defaultLog;
    this.rules = { policy: config.turns.policy, agents: config.order };
    this.events = eventLog(this.layout.events, (err) => this.log.warn(`cannot append to events.jsonl: ${String(err)}`));
    this.folders = config.directions.map((direction) => ({ direction, entries: new Map(), dirty: new Set(), undecodable: [] }));
    for (const f of this.folders) this.byDir.set(f.direction.dir, f);
    this.stopped = new Promise((r) => (this.resolveStopped = r));
    const self = this;
    const stage: Stage = {
      config,
      layout: this.layout,
      events: this.events,
      log: this.log,
      tmux: this.tmux,
      rules: this.rules,
      folders: this.folders,
      get state() {
        return self.state;
      },
      get deliveringTo() {
        return self.pending?.record.receiver ?? null;
      },
      saveState: async (next) => {
        this.state = next;
        await writeState(this.layout.state, next);
      },
      take: (f, name, entry, decision, from, extra) => this.take(f, name, entry, decision, from, extra),
      paneFor: (agent) => this.paneFor(agent),
      typeInto: (agent, text) => this.typeInto(agent, text),
      finish: (reason, note) => this.conductor.finish(reason, note),
      wakeIn: (ms) => this.wakeIn(ms),
      oneshot: Boolean(opts.oneshot),
      resumed: () => {
        this.conductor.replan();
        for (const f of this.folders) for (const e of f.entries.values()) e.heldLogged = false;
        this.again = true;
      },
    };
    this.steering = new Steering(stage);
    this.conductor = new Conductor(stage, this.steering);
  }

  /** Take the lock, reconcile state with the archive, start watching. Throws LockHeldError or StateError. */
  async start(): Promise<void> {
    const l = this.layout;
    await ensureDir(l.root);
    this.lock = await acquireLock(l, (err) => {
      this.log.error(`lost the lock on ${l.root} (${err.message}); stopping so two daemons never deliver at once`);
      void this.stop('lock_compromised');
    });
    try {
      await this.ensureFolders();
      for (const d of [l.root, l.archive, l.rejected]) await sweepTemps(d);
      for (const n of await tidyRejected(l.rejected)) this.log.warn(`rejected/${n} had no note (the daemon stopped mid-way); wrote one`);
      const r = await recover(this.config, l);
      this.state = r.state;
      if (r.stateChanged) await writeState(l.state, this.state);
      for (const note of r.notes) this.log.warn(note);
      if (r.notes.length) await this.events.emit('recovered', { notes: r.notes });
      if (r.pending) this.pending = { ...r.pending, pastedAt: null, entered: false, confirmed: null, lastError: null, committed: true, firstSeen: performance.now(), turnSince: performance.now() };
      if (!this.state.turn_started_at || !this.state.started_at) {
        // Timeouts count from now for a turn whose start was never recorded (a new conversation, or an older state.json).
        const now = new Date().toISOString();
        this.state = { ...this.state, turn_started_at: this.state.turn_started_at ?? now, started_at: this.state.started_at ?? now };
        await writeState(l.state, this.state);
      }
      await this.finishIfDue();
      if (this.opts.oneshot) {
        await this.runRequests();
        await this.stop('oneshot');
        return;
      }
      await this.watch();
      if (this.stopping) {
        await this.closeWatcher(); // lost the lock while starting
        return;
      }
      await this.events.emit('started', {
        pid: process.pid,
        config: this.config.file,
        message_dir: l.root,
        current_turn: this.state.current_turn,
        message_counter: this.state.message_counter,
      });
      this.log.info(`watching ${this.folders.length} folders in ${l.root}; ${this.state.current_turn} has the turn`);
      this.rescanTimer = setInterval(() => void this.rescan(), this.opts.rescanMs ?? 2000);
      await this.rescan();
    } catch (err) {
      await this.closeWatcher();
      await this.lock.release();
      this.lock = null;
      throw err;
    }
  }

  /** Resolves with the reason once the daemon has stopped. */
  get done(): Promise<string> {
    return this.stopped;
  }

  /** Finish the delivery in progress, then stop watching and release the lock. */
  async stop(reason = 'signal'): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    await this.closeWatcher();
    await this.running?.catch(() => {});
    this.tmux.close();
    if (reason !== 'oneshot') await this.events.emit('stopped', { pid: process.pid, reason });
    await this.lock?.release();
    this.lock = null;
    this.log.info(`stopped (${reason})`);
    this.resolveStopped(reason);
  }

  // ---- watching -------------------------------------------------------------------------------

  private async watch(): Promise<void> {
    const dirs = [...this.folders.map((f) => f.direction.dir), this.layout.requests];
    const watcher = watch(dirs, {
      depth: 0,
      ignoreInitial: true,
      // Dot-files and temp files are never read (SPEC §3); directories named *.json are (to reject them).
      ignored: (p: string) => !this.byDir.has(p) && p !== this.layout.requests && !isCandidateName(basename(p)),
    });
    watcher.on('all', (_event, path) => {
      if (dirname(path) === this.layout.requests) {
        this.requestsWaiting = true;
        this.kick();
        return;
      }
      const folder = this.byDir.get(dirname(path));
      if (!folder) return;
      folder.dirty.add(basename(path));
      this.kick();
    });
    watcher.on('error', (err) => this.log.warn(`watcher: ${String(err)}`));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    this.watcher = watcher;
  }

  private async closeWatcher(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    await w?.close().catch(() => {});
  }

  private async ensureFolders(): Promise<void> {
    const l = this.layout;
    await Promise.all([l.archive, l.rejected, l.requests, ...this.folders.map((f) => f.direction.dir)].map(ensureDir));
  }

  /** List every folder in full: new names become dirty, vanished ones are forgotten. */
  private async rescan(): Promise<void> {
    if (this.stopping) return;
    try {
      for (const f of this.folders) {
        let names: string[];
        try {
          const st = await lstat(f.direction.dir);
          if (f.ino !== undefined && st.ino !== f.ino) {
            // Removed and made again between two looks: the watcher still watches the old folder.
            this.log.warn(`${f.direction.dir} was replaced; watching the new folder`);
            this.rewatch(f.direction.dir);
          }
          f.ino = st.ino;
          const listing = await listInbox(f.direction.dir);
          names = listing.names;
          f.undecodable = listing.undecodable; // moved by the next pass: only the loop moves files
        } catch (err) {
          if (!isErrno(err, 'ENOENT')) throw err;
          // The folder was removed under us: make it again and watch the new one.
          this.log.warn(`${f.direction.dir} disappeared; re-creating it`);
          await this.ensureFolders();
          f.ino = (await lstat(f.direction.dir)).ino;
          this.rewatch(f.direction.dir);
          names = [];
        }
        const present = new Set(names);
        for (const n of names) if (!f.entries.has(n)) f.dirty.add(n);
        for (const n of f.entries.keys()) if (!present.has(n)) f.dirty.add(n);
      }
      this.requestsWaiting ||= (await pendingRequests(this.layout.requests)).length > 0;
      await dropStaleReplies(this.layout.requests, 60_000);
      this.kick();
    } catch (err) {
      this.log.warn(`rescan failed: ${String(err)}`);
    }
  }

  private rewatch(dir: string): void {
    this.watcher?.unwatch(dir);
    this.watcher?.add(dir);
  }

  // ---- the loop -------------------------------------------------------------------------------

  /** Run the loop now, or once more after the current pass: passes never overlap. */
  private kick(): void {
    if (this.stopping) return;
    this.again = true;
    this.running ??= this.loop();
  }

  private async loop(): Promise<void> {
    try {
      // `again` is checked and `running` cleared with no await in between, so no kick is ever lost.
      while (this.again && !this.stopping) {
        this.again = false;
        try {
          while (!this.stopping && (await this.pass())) {
            /* delivered one; look again */
          }
        } catch (err) {
          // Nothing a file contains may stop the daemon; an unexpected failure is logged and retried.
          this.log.error(`delivery loop: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          this.wakeIn(1000);
        }
      }
    } finally {
      this.running = null;
    }
  }

  /** Ask for a pass at most `ms` from now (keeps the earliest request). */
  private wakeIn(ms: number): void {
    if (this.stopping) return;
    const at = performance.now() + ms;
    if (this.wakeTimer && at >= this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.wakeAt = Infinity;
      this.kick();
    }, ms);
  }

  /** One pass: finish a pending delivery, examine changed files, deliver at most one. True = delivered. */
  private async pass(): Promise<boolean> {
    // A cut-short delivery goes first; until it is done nothing else is delivered (but bad files are still rejected).
    const free = !this.pending || (await this.finishPending());
    // A person's requests are answered even while a delivery is stuck (each one says what it cannot do
    // now); reminders wait until nothing is half-typed.
    if (this.requestsWaiting) await this.runRequests();
    if (free) await this.conductor.conduct();
    for (const f of this.folders) {
      for (const raw of f.undecodable.splice(0)) await this.rejectRaw(f, raw);
      await this.refresh(f);
    }

    let best: { folder: Folder; name: string; entry: Entry; decision: Delivery } | null = null;
    for (const f of this.folders) {
      const names = [...f.entries.keys()].sort(byName);
      let head = true;
      for (const name of names) {
        const entry = f.entries.get(name)!;
        if (entry.result?.kind !== 'valid') {
          head = false; // an earlier file still being written keeps its place in the order
          continue;
        }
        const d = decide(this.state, f.direction, this.rules);
        if (d.action === 'reject') {
          await this.reject(f, name, d.reason);
        } else if (d.action === 'hold') {
          if (!entry.heldLogged) {
            entry.heldLogged = true;
            this.log.info(`held ${f.direction.name}/${name}: ${d.reason}`);
            await this.events.emit('held', { file: name, direction: f.direction.name, reason: d.reason });
          }
        } else if (head && (!best || name < best.name)) {
          entry.turnSince ??= performance.now(); // its turn came: the time held in the inbox ends here
          best = { folder: f, name, entry, decision: d };
        }
        head = false;
      }
    }
    if (!free || !best) return false;
    if (this.config.turns.moderated) return this.steering.moderate(best.folder, best.name, best.entry);
    return this.take(best.folder, best.name, best.entry, best.decision);
  }

  /** Examine the names the watcher or a rescan marked as changed. */
  private async refresh(f: Folder): Promise<void> {
    const { dir } = f.direction;
    const now = performance.now();
    for (const name of [...f.dirty]) {
      f.dirty.delete(name);
      if (!isCandidateName(name)) continue;
      const res = await examine(dir, name, f.direction, this.config.inbox.max_bytes);
      let entry = f.entries.get(name);
      if (res.kind === 'gone') {
        f.entries.delete(name);
        continue;
      }
      if (!entry) {
        entry = { firstSeen: now, result: null, unchangedSince: now, heldLogged: false };
        f.entries.set(name, entry);
      }
      if (res.kind === 'bad') {
        await this.reject(f, name, res.reason);
        continue;
      }
      if (res.kind === 'unsettled') {
        const prev = entry.result;
        if (prev?.kind !== 'unsettled' || prev.sig !== res.sig) entry.unchangedSince = now;
        entry.result = res;
        const waited = now - entry.unchangedSince;
        const settle = this.config.inbox.settle_ms;
        if (waited >= settle) {
          await this.reject(f, name, res.reason);
        } else if (now - entry.firstSeen > Math.max(10 * settle, 10_000)) {
          // A file that never stops changing must not hold its folder's queue forever.
          await this.reject(f, name, `${res.reason} (still changing ${Math.round((now - entry.firstSeen) / 1000)} s after it appeared)`);
        } else {
          // Look again once it has been still for settle_ms; a change (watcher event) looks sooner.
          setTimeout(() => {
            f.dirty.add(name);
            this.kick();
          }, this.config.inbox.settle_ms - waited + 5).unref();
        }
        continue;
      }
      entry.result = res;
    }
  }

  /** Move a file to rejected/ with its note, and say so. `src` defaults to the file's path in its inbox. */
  private async reject(f: Folder, name: string, reason: string, src: string | Buffer = join(f.direction.dir, name), extra = {}): Promise<void> {
    f.entries.delete(name);
    await ensureDir(this.layout.rejected);
    const { direction } = f;
    const moved = await quarantine(this.layout.rejected, src, name, { reason, direction: direction.name, from: direction.from, to: direction.to, ...extra });
    if (!moved) return;
    this.log.warn(`rejected ${direction.name}/${name}: ${reason}`);
    await this.events.emit('rejected', { file: name, direction: direction.name, reason, stored_as: moved.name });
  }

  /** A name that is not valid UTF-8 can only be reached by its bytes; it is moved under a readable name. */
  private async rejectRaw(f: Folder, raw: Buffer): Promise<void> {
    const shown = raw.toString('utf8').replace(/[\uFFFD\u0000-\u001F/]/g, '_');
    const path = Buffer.concat([Buffer.from(`${f.direction.dir}/`), raw]);
    await this.reject(f, shown, 'the file name is not valid UTF-8', path, { file_name_base64: raw.toString('base64') });
  }

  // ---- delivery -------------------------------------------------------------------------------

  /** Steps CLAIMED → ARCHIVED → COMMITTED, then type it. False when the receiver cannot take it now. */
  private async take(f: Folder, name: string, entry: Entry, decision: Delivery, from = f.direction.dir, extra: Record<string, unknown> = {}): Promise<boolean> {
    const d = f.direction;
    // Not archived while the receiver's pane is missing: the message stays in its inbox (SPEC §6).
    const pane = await this.paneFor(d.to);
    if (typeof pane === 'string') return false;

    // Claim: one atomic rename out of the inbox, so a writer replacing the name from now on makes a new
    // message instead of having its file deleted with ours. What is archived is what was claimed.
    const claimDir = join(this.layout.claims, d.name, decision.id);
    // A claim stranded by an earlier failed attempt at this ID goes back to its inbox first.
    if (!(await makeDir(claimDir))) for (const stray of await readdir(claimDir)) await this.unclaim(f, claimDir, stray);
    f.entries.delete(name);
    try {
      await rename(join(from, name), join(claimDir, name));
    } catch (err) {
      await rmdir(claimDir).catch(() => {});
      f.dirty.add(name); // look again: gone (someone else took it), or there after all
      if (isErrno(err, 'ENOENT')) return true;
      throw err;
    }
    let claimed: Examined;
    try {
      // Unchanged since it was checked (same bytes): not parsed and validated again.
      claimed = await examine(claimDir, name, d, this.config.inbox.max_bytes, entry.result?.kind === 'valid' ? entry.result : null);
    } catch (err) {
      await this.unclaim(f, claimDir, name);
      throw err;
    }
    if (claimed.kind !== 'valid') {
      await this.unclaim(f, claimDir, name); // changed since we looked: back in the queue
      return true;
    }
    const m = claimed.message;
    const record: ArchiveRecord = {
      id: decision.id,
      reply_to: decision.reply_to,
      ...m,
      sender: d.from,
      receiver: d.to,
      type: m.type,
      content: m.content,
      direction: d.name,
      source_file: name,
      ...extra,
      received_at: new Date(Date.now() - (performance.now() - entry.firstSeen)).toISOString(),
      delivered_at: null,
    };
    try {
      await archiveNew(this.layout.archive, record);
    } catch (err) {
      await this.unclaim(f, claimDir, name);
      throw err;
    }
    // Archived: from here the message is committed. The state moves on in memory at once, so a failing
    // disk below can delay it but never reuse its ID; the next start rebuilds state.json from the archive.
    // The holder wrote, so its turn is over: the next turn's clock starts, with no reminders yet.
    const now = new Date().toISOString();
    this.state = { ...this.state, ...decision.next, turn_started_at: now, nudges: 0, stalled: false };
    this.conductor.replan(); // a new turn: its reminders are planned afresh
    this.pending = { record, maybeTyped: false, pastedAt: null, entered: false, confirmed: null, lastError: null, committed: false, firstSeen: entry.firstSeen, turnSince: entry.turnSince ?? entry.firstSeen };
    // The claim is now a copy of the archived message (a leftover is removed at the next start), so it
    // goes while state.json is written: neither order matters to recovery.
    await Promise.all([
      unlink(join(claimDir, name))
        .then(() => rmdir(claimDir))
        .catch((err) => this.log.warn(`cannot remove the claim ${claimDir}: ${String(err)}`)),
      writeState(this.layout.state, this.state).then(() => (this.pending!.committed = true)),
    ]);
    await this.finishPending(pane);
    return true;
  }

  /** Put a claimed file back in its inbox (under a free name) to be examined again. */
  private async unclaim(f: Folder, claimDir: string, name: string): Promise<void> {
    const back = await moveNoClobber(join(claimDir, name), f.direction.dir, name);
    await rmdir(claimDir).catch(() => {}); // not empty: another stray, handled on the next attempt
    f.dirty.add(back);
  }

  /** COMMITTED → TYPED → DELIVERED for the pending message. False when it must wait (pane unavailable). */
  private async finishPending(checked?: PaneInfo): Promise<boolean> {
    const p = this.pending!;
    const r = p.record;
    // take() has just checked the pane; a retry looks again. Text in the input box may be this very
    // message (pasted, not yet submitted; or pasted before a crash), so it does not make the pane wait.
    if (!p.committed) {
      // The state write failed after archiving: write it before typing (a crash must find it COMMITTED).
      await writeState(this.layout.state, this.state);
      p.committed = true;
    }
    const ours = `[baton] ${r.id} `;
    const pane = checked ?? (await this.paneFor(r.receiver, { ours: p.pastedAt !== null || p.maybeTyped ? ours : undefined }));
    if (typeof pane === 'string') return false;
    const agent = this.config.agents[r.receiver]!;
    try {
      // Each step runs once: a retry after a failed Enter presses only Enter, a retry after an unconfirmed
      // submit only looks (and presses Enter once more if the text is still there), and after a failed
      // archive stamp nothing is typed at all.
      if (p.pastedAt === null) {
        const text = render(
          { id: r.id, from: r.sender, to: r.receiver, reply_to: r.reply_to, type: r.type, subject: r.subject, content: r.content, redelivered: p.maybeTyped },
          this.config.delivery.template,
          replyHint(this.config, r.receiver),
        );
        p.pastedAt = await paste(this.tmux, pane, text);
      }
      if (!p.entered) {
        if (!(await pasteShown(this.tmux, agent, pane))) {
          // Not in the box (lost, or cleared by someone): nothing to submit. Typed again next time, flagged.
          p.pastedAt = null;
          p.maybeTyped = true;
          throw new PasteError(`the paste never showed in ${pane.id}'s input box`, true);
        }
        await submit(this.tmux, pane, Math.max(0, enterDelay(agent, this.config.delivery.enter_delay_ms) - (performance.now() - (p.pastedAt ?? 0))));
        p.entered = true;
      }
      p.confirmed ??= await confirmSubmit(this.tmux, agent, pane, ours);
    } catch (err) {
      if (!(err instanceof PasteError)) throw err;
      p.maybeTyped ||= err.maybeTyped;
      if (p.lastError !== err.message) {
        p.lastError = err.message;
        this.log.warn(`${r.id} → ${r.receiver}: ${err.message}; will retry`);
        await this.events.emit('delivery_failed', { id: r.id, to: r.receiver, error: err.message, pasted: p.pastedAt !== null, entered: p.entered });
      }
      this.retryLater(r.receiver);
      return false;
    }
    this.attempts.delete(r.receiver);
    const redelivered = p.maybeTyped;
    // From here on the text is in the pane: whatever fails next, typing it again must be flagged.
    p.maybeTyped = true;
    const done: ArchiveRecord = { ...r, delivered_at: new Date().toISOString(), confirmed: p.confirmed ?? 'not_checked', ...(redelivered ? { redelivered: true } : {}) };
    await archiveUpdate(this.layout.archive, done);
    this.pending = null;
    // SPEC §7's latency_ms runs from first sight to the paste; a file written out of turn spent most of it
    // held, which is not delivery time (issue 12: "msg_0009 … in 9220.9 ms"), so the two are told apart.
    const pasted = p.pastedAt ?? performance.now();
    const round = (ms: number) => Math.round(ms * 10) / 10;
    const latency = round(pasted - p.firstSeen);
    const held = round(Math.max(0, p.turnSince - p.firstSeen));
    const typing = round(pasted - Math.max(p.firstSeen, p.turnSince));
    if (redelivered) await this.events.emit('redelivered', { id: r.id, from: r.sender, to: r.receiver });
    await this.events.emit('delivered', { id: r.id, from: r.sender, to: r.receiver, reply_to: r.reply_to, latency_ms: latency, held_ms: held, delivery_ms: typing, ...(redelivered ? { redelivered: true } : {}) });
    const heldNote = held >= 1000 ? ` (held ${(held / 1000).toFixed(1)} s before its turn)` : '';
    this.log.success(`${r.id} ${r.sender} → ${r.receiver}${redelivered ? ' (redelivered)' : ''} in ${typing} ms${heldNote}`);
    const ends = this.state.finished ? null : endsWith(this.state, { from: r.sender, content: r.content }, rulesFor(this.config.turns, this.state));
    if (ends) await this.conductor.finish(ends);
    return true;
  }

  /**
   * The agent's pane when it is ready to be typed into, else why not (logged once per outage, retried
   * with capped backoff).
   */
  private async paneFor(agentName: string, opts: { ours?: string | undefined } = {}): Promise<PaneInfo | string> {
    const agent = this.config.agents[agentName]!;
    const target = targetOf(agent);
    const pane = await findPane(this.tmux, agent);
    const notReady = await whyNotReady(this.tmux, agent, pane);
    // Text in the box may be message `ours` itself (pasted, not yet submitted), but never a person's.
    const screen = notReady?.screen;
    const oursInBox = screen?.state === 'holding' && opts.ours !== undefined && isOurPaste(screen.input, opts.ours);
    const problem = oursInBox ? null : (notReady?.reason ?? null);
    // A one-shot answer (no daemon running) only says why; outages are the running daemon's to report.
    if (this.opts.oneshot) return pane && !problem ? pane : (problem ?? 'no pane');
    if (pane && !problem) {
      if (this.outages.delete(agentName)) {
        this.attempts.delete(agentName);
        this.log.info(`${agentName}'s pane is back (${pane.id})`);
        await this.events.emit('pane_available', { agent: agentName, target, pane: pane.id });
      }
      return pane;
    }
    if (!this.outages.has(agentName)) {
      this.outages.add(agentName);
      this.log.warn(`cannot deliver to ${agentName}: ${problem}; the message waits`);
      await this.events.emit('pane_unavailable', { agent: agentName, target, reason: problem });
      const screen = notReady?.screen;
      if (screen?.state === 'unknown' || screen?.state === 'dialog') await this.events.emit('screen_unknown', { agent: agentName, state: screen.state, detail: screen.detail });
    }
    this.retryLater(agentName);
    return problem ?? 'no pane';
  }

  private retryLater(agentName: string): void {
    if (this.stopping) return;
    const n = this.attempts.get(agentName) ?? 0;
    this.attempts.set(agentName, n + 1);
    this.wakeIn(BACKOFF_MS[Math.min(n, BACKOFF_MS.length - 1)]!);
  }

  /**
   * A daemon killed between stamping a delivery and writing `finished` (stop phrase, max_turns): end the
   * conversation now. Only for a delivery of the current turn (a resume since then starts a new one).
   */
  private async finishIfDue(): Promise<void> {
    const s = this.state;
    if (s.finished || this.pending || !s.last_message_id || !s.turn_started_at) return;
    const last = await readRecord(this.layout.archive, s.last_message_id);
    if (!last?.delivered_at || last.delivered_at < s.turn_started_at) return;
    const ends = endsWith(s, { from: last.sender, content: last.content }, rulesFor(this.config.turns, s));
    if (ends) await this.conductor.finish(ends);
  }

  /** Answer a person's waiting requests (steering.ts). */
  private async runRequests(): Promise<void> {
    this.requestsWaiting = false;
    await this.steering.runRequests(() => this.stopping && !this.opts.oneshot);
  }

  /** Paste text of baton's own into an agent's pane and press Enter. Returns why not, or null when typed. */
  private async typeInto(agent: string, text: string): Promise<string | null> {
    const pane = await this.paneFor(agent);
    if (typeof pane === 'string') return pane;
    const a = this.config.agents[agent]!;
    try {
      await typeText(this.tmux, a, pane, text, enterDelay(a, this.config.delivery.enter_delay_ms));
      return null;
    } catch (err) {
      if (err instanceof PasteError) return err.message;
      throw err;
    }
  }
}
