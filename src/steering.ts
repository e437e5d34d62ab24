/**
 * A person steering the conversation through the daemon: moderated mode (pending/, approve, reject)
 * and the requests of requests.ts (end, resume, send, approve, reject). The daemon runs these between
 * deliveries, so a person's text never lands between a paste and its Enter; `Stage` is what they may
 * touch of the daemon.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { archivedCounters, archiveNew, archiveUpdate, readRecord, type ArchiveRecord } from './archive.js';
import { kickoffHint, render, resumeNotice, sanitize, userHint } from './compose.js';
import type { Config } from './config.js';
import type { FinishReason } from './conversation.js';
import type { EventLog } from './events.js';
import { ensureDir, isErrno, moveNoClobber } from './fsx.js';
import { byName, examine, isCandidateName, type Entry, type Folder } from './inbox.js';
import type { Layout } from './layout.js';
import type { Logger } from './log.js';
import { enterDelay, PasteError, typeText, type PaneInfo } from './pane.js';
import { quarantine } from './rejected.js';
import { answer, answered, pendingRequests, readRequest, takeRequest, type Reply, type Request } from './requests.js';
import type { State } from './state.js';
import type { Tmux } from './tmux.js';
import { decide, formatId, type Decision, type Rules } from './turns.js';

type Delivery = Extract<Decision, { action: 'deliver' }>;

/** What steering and the conductor may use of the daemon. */
export interface Stage {
  readonly config: Config;
  readonly layout: Layout;
  readonly events: EventLog;
  readonly log: Logger;
  readonly tmux: Tmux;
  readonly rules: Rules;
  readonly folders: readonly Folder[];
  readonly state: State;
  saveState(next: State): Promise<void>;
  /** `extra` fields go into the archive record (e.g. the request that approved it). */
  take(f: Folder, name: string, entry: Entry, decision: Delivery, from: string, extra?: Record<string, unknown>): Promise<boolean>;
  /** The agent's pane when ready to be typed into, else why not. */
  paneFor(agent: string): Promise<PaneInfo | string>;
  typeInto(agent: string, text: string): Promise<string | null>;
  finish(reason: FinishReason, note?: string): Promise<void>;
  /** Ask the loop for a pass at most `ms` from now. */
  wakeIn(ms: number): void;
  /** The agent a delivery not yet finished is for (its paste may be in the box without its Enter). */
  readonly deliveringTo: string | null;
  /** The conversation was resumed: look at held files again. */
  resumed(): void;
  /** A command answering its own request with no daemon running (`baton send` with nothing up). */
  readonly oneshot: boolean;
}

export class Steering {
  constructor(private readonly stage: Stage) {}

  /** The turn holder's message waits in pending/<direction>/ for a person (one per turn). */
  async moderate(f: Folder, name: string, entry: Entry): Promise<boolean> {
    const d = f.direction;
    const pending = await this.pendingFiles();
    // A move into pending/ cut short by a crash (linked, not yet unlinked): the same file is in both. Finish it.
    const ino = (await lstat(join(d.dir, name)).catch(() => null))?.ino;
    for (const p of pending.filter((x) => x.folder === f)) {
      if (ino !== undefined && (await lstat(join(this.stage.layout.pending, d.name, p.name)).catch(() => null))?.ino === ino) {
        f.entries.delete(name);
        await unlink(join(d.dir, name)).catch(() => {});
        return true;
      }
    }
    if (pending.some((p) => p.folder.direction.from === d.from)) {
      if (!entry.heldLogged) {
        entry.heldLogged = true;
        await this.stage.events.emit('held', { file: name, direction: d.name, reason: `${d.from} already has a message waiting for approval` });
      }
      return false;
    }
    f.entries.delete(name);
    await ensureDir(join(this.stage.layout.pending, d.name));
    const moved = await moveNoClobber(join(d.dir, name), join(this.stage.layout.pending, d.name), name).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return null; // gone meanwhile
      throw err;
    });
    if (moved === null) return true;
    this.stage.log.info(`${d.name}/${name} waits for approval as pending/${d.name}/${moved}`);
    await this.stage.events.emit('pending', { file: `${d.name}/${moved}`, direction: d.name, from: d.from, to: d.to });
    return true;
  }

  /** Files in pending/, as `<direction>/<name>`, in order. */
  async pendingFiles(): Promise<Array<{ folder: Folder; name: string; key: string }>> {
    const out: Array<{ folder: Folder; name: string; key: string }> = [];
    for (const f of this.stage.folders) {
      const names = await readdir(join(this.stage.layout.pending, f.direction.name)).catch(() => [] as string[]);
      for (const name of names.filter(isCandidateName).sort(byName)) out.push({ folder: f, name, key: `${f.direction.name}/${name}` });
    }
    return out;
  }

  /** Resolve FILE as named in pending/: `<direction>/<name>`, or a bare name when only one folder has it. */
  async findPending(file: string): Promise<{ folder: Folder; name: string; key: string } | string> {
    const all = await this.pendingFiles();
    const hits = all.filter((p) => p.key === file || p.name === file);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) return `"${file}" is in more than one folder: name it as ${hits.map((h) => h.key).join(' or ')}`;
    return all.length ? `no pending file "${file}" (pending: ${all.map((p) => p.key).join(', ')})` : `no pending file "${file}" (nothing is pending)`;
  }

  async approve(p: { folder: Folder; name: string; key: string }, request: string): Promise<Reply> {
    const f = p.folder;
    const src = join(this.stage.layout.pending, f.direction.name);
    const result = await examine(src, p.name, f.direction, this.stage.config.inbox.max_bytes);
    if (result.kind === 'gone') return { ok: false, message: `${p.key} is gone` };
    if (result.kind !== 'valid') return { ok: false, message: `${p.key} is no longer a valid message (${result.reason}); reject it` };
    const d = decide(this.stage.state, f.direction, this.stage.rules);
    if (d.action !== 'deliver') return { ok: false, message: `${p.key} cannot be delivered now: ${d.reason}` };
    const before = this.stage.state.message_counter;
    const entry: Entry = { firstSeen: performance.now(), result, unchangedSince: performance.now(), heldLogged: true };
    await this.stage.take(f, p.name, entry, d, src, { approved_by: request });
    if (this.stage.state.message_counter === before) return { ok: false, message: `${p.key} waits: ${f.direction.to}'s pane is unavailable; approve again when it is back` };
    await this.stage.events.emit('approved', { file: p.key, id: d.id });
    return { ok: true, message: `${p.key} approved as ${d.id}${this.stage.deliveringTo ? ' (typing it is being retried)' : ''}`, id: d.id };
  }

  /** Answer every waiting request, oldest first (until `stop` says to stop). */
  async runRequests(stop: () => boolean): Promise<void> {
    const dir = this.stage.layout.requests;
    for (const name of await pendingRequests(dir)) {
      if (stop()) return;
      if (await answered(dir, name)) {
        await unlink(join(dir, name)).catch(() => {});
        continue;
      }
      const taken = await takeRequest(dir, name);
      if (!taken) continue; // withdrawn by the command that asked (it gave up waiting)
      const req = await readRequest(dir, taken);
      let reply: Reply;
      try {
        // The request's own name (not the taken one) identifies it across a crash: see send().
        reply = 'invalid' in req ? { ok: false, message: `not a valid request: ${req.invalid}` } : await this.handle(req, name.replace(/\.taken$/, ''));
      } catch (err) {
        reply = { ok: false, message: `failed: ${err instanceof Error ? err.message : String(err)}` };
      }
      await answer(dir, taken, reply);
    }
  }

  async handle(req: Request, name: string): Promise<Reply> {
    // A delivery not yet finished: nothing may be typed into its receiver's pane before its Enter, and no
    // other message may be delivered before it. Say so now rather than leave the person waiting.
    const busy = this.stage.deliveringTo;
    const typesInto = req.op === 'send' ? req.to : req.op === 'start' ? this.stage.state.current_turn : null;
    if (busy !== null && (typesInto === busy || req.op === 'approve')) {
      return { ok: false, message: `not now: a message to ${busy} is still being delivered (see baton status); try again when it is` };
    }
    switch (req.op) {
      case 'end':
        if (this.stage.state.finished) return { ok: true, message: `already finished (${this.stage.state.finished.reason})`, finished: this.stage.state.finished };
        await this.stage.finish('ended', req.reason);
        return { ok: true, message: 'the conversation has finished; later files are held', finished: this.stage.state.finished };
      case 'resume':
        return this.resume();
      case 'pause': {
        const st = this.stage.state;
        if (st.finished) return { ok: true, message: `it has finished (${st.finished.reason}): nothing is delivered anyway; "baton resume" continues it` };
        if (st.paused) return { ok: true, message: `already paused (since ${st.paused.at}); "baton resume" continues it` };
        await this.stage.saveState({ ...st, paused: { at: new Date().toISOString() } });
        await this.stage.events.emit('paused', { current_turn: st.current_turn });
        this.stage.log.info('paused: deliveries wait until "baton resume"');
        return { ok: true, message: `paused: messages wait in their folders (the agents are not told); "baton resume" continues. ${st.current_turn} has the turn` };
      }
      case 'start':
        return this.start(req.topic, name);
      case 'send':
        return this.send(req.to, req.content, req.type, name);
      case 'approve': {
        // Approved already by this very request (a daemon killed before it answered): say so again.
        const last = this.stage.state.last_message_id ? await readRecord(this.stage.layout.archive, this.stage.state.last_message_id) : null;
        if (!req.all && (last as { approved_by?: string } | null)?.approved_by === name) return { ok: true, message: `${req.file} approved as ${last!.id}`, id: last!.id };
        const targets = req.all ? await this.pendingFiles() : [await this.findPending(req.file ?? '')];
        if (!req.all && !req.file) return { ok: false, message: 'name a pending file, or --all' };
        const lines: string[] = [];
        let ok = true;
        for (const t of targets) {
          if (typeof t === 'string') return { ok: false, message: t };
          const r = await this.approve(t, name);
          ok &&= r.ok;
          lines.push(r.message);
        }
        return { ok, message: lines.join('\n') || 'nothing is pending' };
      }
      case 'reject': {
        const p = await this.findPending(req.file);
        if (typeof p === 'string') return { ok: false, message: p };
        const d = p.folder.direction;
        const note = `rejected by a person: ${req.reason}`;
        const moved = await quarantine(this.stage.layout.rejected, join(this.stage.layout.pending, d.name, p.name), p.name, { reason: note, direction: d.name, from: d.from, to: d.to });
        if (!moved) return { ok: false, message: `${p.key} is gone` };
        await this.stage.events.emit('rejected', { file: p.name, direction: d.name, reason: note, stored_as: moved.name });
        const err = d.from === this.stage.deliveringTo ? 'a message to it is still being delivered' : await this.stage.typeInto(d.from, `[baton] your message ${p.name} to ${d.to} was not delivered. A person said: ${sanitize(req.reason)}\n[baton] it is still your turn; write a new message.`);
        return { ok: true, message: `${p.key} rejected${err ? ` (could not tell ${d.from}: ${err})` : ` and ${d.from} was told why`}` };
      }
    }
  }

  /**
   * Continue after `end` (or max_turns, a stop phrase …) or `pause`. A finished conversation told every
   * pane to stop, so every pane is told it continues, and the holder what it owes (issue 12: agents that
   * obeyed "stop" never wrote again). A pause told nobody, so its resume tells nobody; a stalled holder
   * is reminded.
   */
  async resume(): Promise<Reply> {
    const st = this.stage.state;
    const was = st.finished;
    const now = new Date().toISOString();
    await this.stage.saveState({
      ...st,
      finished: null,
      paused: null,
      stalled: false,
      nudges: 0,
      turn_started_at: now,
      // max_turns and max_duration_s count again from a resume of a finished conversation.
      ...(was ? { started_at: now, turns_base: st.message_counter } : {}),
    });
    const holder = this.stage.state.current_turn;
    await this.stage.events.emit('resumed', { was: was?.reason ?? null, paused: Boolean(st.paused), current_turn: holder });
    this.stage.resumed();
    const tell = was ? this.stage.config.order : st.stalled ? [holder] : [];
    const failed: string[] = [];
    for (const agent of tell) {
      const err = agent === this.stage.deliveringTo ? 'a message to it is still being delivered' : await this.stage.typeInto(agent, resumeNotice(this.stage.config, agent, this.stage.state));
      if (err) failed.push(`could not tell ${agent}: ${err}`);
    }
    const told = tell.length === 0 ? '' : failed.length ? `; ${failed.join('; ')}` : tell.length > 1 ? '; every pane was told' : `; ${holder} was reminded`;
    const what = was ? `resumed (it had finished: ${was.reason})` : st.paused ? 'resumed (it was paused)' : st.stalled ? 'resumed (it had stalled)' : 'it was not finished or paused';
    return { ok: true, message: `${what}; ${holder} has the turn${told}`, current_turn: holder };
  }

  /**
   * A kick-off (`baton start`, `baton up --topic`): the topic is typed to the turn holder as the opening of
   * its turn, with how to answer through baton, and archived as a person's message (user_NNNN, kickoff).
   * The turn does not move; its clock starts again, so reminders count from the topic.
   */
  async start(topic: string, request: string): Promise<Reply> {
    const st = this.stage.state;
    if (st.finished) return { ok: false, message: `the conversation has finished (${st.finished.reason}); "baton resume" continues it, then start` };
    const holder = st.current_turn;
    const reply = await this.send(holder, topic, 'task', request, kickoffHint(this.stage.config, holder, st.pending_reply_to), { kickoff: true });
    if (!reply.ok) return reply;
    await this.stage.saveState({ ...this.stage.state, turn_started_at: new Date().toISOString(), nudges: 0, stalled: false });
    this.stage.resumed();
    return { ...reply, message: `${reply.message}: ${holder} opens the conversation${st.paused ? ' (it is paused: "baton resume" lets messages through)' : ''}` };
  }

  /** A person's message (`baton send`): user_NNNN in the archive, typed into the agent's pane, no turn moved. */
  async send(to: string, content: string, type: string, request: string, hint?: string, extra: Record<string, unknown> = {}): Promise<Reply> {
    if (!this.stage.config.agents[to]) return { ok: false, message: `unknown agent "${to}" (agents: ${this.stage.config.order.join(', ')})` };
    // Done already (a daemon killed after typing, before answering)? Then say so; typed but unstamped: flag it.
    const counters = await archivedCounters(this.stage.layout.archive, 'user');
    let record: ArchiveRecord | null = null;
    for (const n of counters.slice(-20)) {
      const r = await readRecord(this.stage.layout.archive, formatId(n, 'user'));
      if (r && (r as { request?: string }).request === request) record = r;
    }
    if (record?.delivered_at) return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
    const pane = await this.stage.paneFor(to);
    // `unavailable`: nothing was done and trying again later may work (`up --topic` waits for the agent).
    if (typeof pane === 'string') {
      const running = this.stage.oneshot ? ': nothing is running for this conversation; start it with "baton up"' : '';
      return { ok: false, message: `not sent: ${to} cannot take it now (${pane})${running}`, unavailable: true };
    }
    const redelivered = record !== null;
    if (!record) {
      // The archive is the record of user IDs too: the next one follows the last archived.
      const n = (counters.at(-1) ?? 0) + 1;
      record = {
        id: formatId(n, 'user'), reply_to: null, sender: 'user', receiver: to, type: type as ArchiveRecord['type'], content, direction: 'user',
        source_file: request, received_at: new Date().toISOString(), delivered_at: null, request, ...extra,
      } as ArchiveRecord;
      await archiveNew(this.stage.layout.archive, record);
    }
    const text = render({ id: record.id, from: 'user', to, reply_to: null, type, content, redelivered }, this.stage.config.delivery.template, hint ?? userHint(this.stage.state));
    const agent = this.stage.config.agents[to]!;
    let confirmed: ArchiveRecord['confirmed'];
    try {
      confirmed = await typeText(this.stage.tmux, agent, pane, text, enterDelay(agent, this.stage.config.delivery.enter_delay_ms));
    } catch (err) {
      if (!(err instanceof PasteError)) throw err;
      return { ok: false, message: `${record.id} is archived but its typing was not confirmed (${err.message}); look at ${to}'s pane before sending it again` };
    }
    await archiveUpdate(this.stage.layout.archive, { ...record, delivered_at: new Date().toISOString(), confirmed, ...(redelivered ? { redelivered: true } : {}) });
    await this.stage.events.emit('sent', { id: record.id, to, ...extra, ...(redelivered ? { redelivered: true } : {}) });
    this.stage.log.success(`${record.id} user → ${to}`);
    return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
  }
}
