/**
 * A person steering the conversation through the daemon: the requests of core/requests.ts (end, pause,
 * resume, start, send, approve, reject), answered between deliveries, so a person's text never lands
 * between a paste and its Enter, and the state has one writer. Each answer is a Reply; what a request
 * could not do now it says at once ("not now: …") rather than leave the person waiting.
 */
import type { Approval } from '../bus/bus.js';
import { kickoffHint, render, resumeNotice, sanitize, userHint } from '../core/compose.js';
import { personRecord, stamped, withReceipt } from '../core/record.js';
import type { Reply, Request } from '../core/requests.js';
import { decide } from '../core/turns.js';
import { isLocal } from '../config/config.js';
import type { Stage } from './stage.js';

export class Steering {
  constructor(private readonly stage: Stage) {}

  /** Answer every waiting request, oldest first (until `stop` says to stop). */
  async runRequests(stop: () => boolean): Promise<void> {
    const bus = this.stage.bus;
    for (const name of await bus.requests()) {
      if (stop()) return;
      const taken = await bus.takeRequest(name);
      if (!taken) continue; // withdrawn by the command that asked, or answered already
      const req = taken.request;
      let reply: Reply;
      try {
        // The request's own name (not the taken one) identifies it across a crash: see send().
        reply =
          'invalid' in req
            ? { ok: false, message: `not a valid request: ${req.invalid}` }
            : await this.handle(req, name.replace(/\.taken$/, ''));
      } catch (err) {
        reply = { ok: false, message: `failed: ${err instanceof Error ? err.message : String(err)}` };
      }
      await bus.answer(taken.name, reply);
    }
  }

  async handle(req: Request, name: string): Promise<Reply> {
    const state = this.stage.bus.state();
    // A delivery not yet stamped: nothing may be typed into its receiver's pane before its Enter, and no
    // other message may be delivered before it. Say so now rather than leave the person waiting.
    const busy = this.stage.deliveringTo();
    const typesInto = req.op === 'send' ? req.to : req.op === 'start' ? state.current_turn : null;
    if (busy !== null && (typesInto === busy || req.op === 'approve')) {
      return {
        ok: false,
        message: `not now: a message to ${busy} is still being delivered (see baton status); try again when it is`,
      };
    }
    switch (req.op) {
      case 'end':
        if (state.finished)
          return { ok: true, message: `already finished (${state.finished.reason})`, finished: state.finished };
        await this.stage.finish('ended', req.reason);
        return {
          ok: true,
          message: 'the conversation has finished; later files are held',
          finished: this.stage.bus.state().finished,
        };
      case 'resume':
        return this.resume();
      case 'notice': {
        // From another machine's daemon (SPEC §10): typed as it is, baton's own words.
        if (!isLocal(this.stage.config, req.to))
          return { ok: false, message: `${req.to} is not an agent of this machine` };
        if (busy === req.to)
          return { ok: false, message: `${req.to} is not told: a message to it is still being delivered` };
        const err = await this.stage.typeInto(req.to, sanitize(req.text));
        return err
          ? { ok: false, message: `could not tell ${req.to}: ${err}` }
          : { ok: true, message: `${req.to} was told` };
      }
      case 'pause': {
        if (state.finished)
          return {
            ok: true,
            message: `it has finished (${state.finished.reason}): nothing is delivered anyway; "baton resume" continues it`,
          };
        if (state.paused)
          return { ok: true, message: `already paused (since ${state.paused.at}); "baton resume" continues it` };
        await this.stage.bus.update((s) => ({ ...s, paused: { at: new Date().toISOString() } }));
        await this.stage.bus.events.emit('paused', { current_turn: state.current_turn });
        this.stage.log.info('paused: deliveries wait until "baton resume"');
        return {
          ok: true,
          message: `paused: messages wait in their folders (the agents are not told); "baton resume" continues. ${state.current_turn} has the turn`,
        };
      }
      case 'start':
        return this.start(req.topic, name);
      case 'send':
        return this.send(req.to, req.content, req.type, name);
      case 'approve':
        return this.approveAll(req, name);
      case 'reject': {
        const p = await this.findApproval(req.file);
        if (typeof p === 'string') return { ok: false, message: p };
        const d = p.direction;
        if (!(await this.stage.bus.refuse(p, `rejected by a person: ${req.reason}`)))
          return { ok: false, message: `${p.key} is gone` };
        const err =
          d.from === this.stage.deliveringTo()
            ? 'a message to it is still being delivered'
            : await this.stage.typeInto(
                d.from,
                `[baton] your message ${p.name} to ${d.to} was not delivered. A person said: ${sanitize(req.reason)}\n[baton] it is still your turn; write a new message.`,
              );
        return {
          ok: true,
          message: `${p.key} rejected${err ? ` (could not tell ${d.from}: ${err})` : ` and ${d.from} was told why`}`,
        };
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
    const st = this.stage.bus.state();
    const was = st.finished;
    const now = new Date().toISOString();
    // max_turns and max_duration_s count again from a resume of a finished conversation.
    const next = await this.stage.bus.update((s) => ({
      ...s,
      finished: null,
      paused: null,
      stalled: false,
      nudges: 0,
      turn_started_at: now,
      ...(was ? { started_at: now, turns_base: s.message_counter } : {}),
    }));
    const holder = next.current_turn;
    await this.stage.bus.events.emit('resumed', {
      was: was?.reason ?? null,
      paused: Boolean(st.paused),
      current_turn: holder,
    });
    this.stage.resumed();
    const tell = was ? this.stage.config.order : st.stalled ? [holder] : [];
    const failed: string[] = [];
    for (const agent of tell) {
      const err =
        agent === this.stage.deliveringTo()
          ? 'a message to it is still being delivered'
          : await this.stage.typeInto(agent, resumeNotice(this.stage.config, agent, next));
      if (err) failed.push(`could not tell ${agent}: ${err}`);
    }
    const told =
      tell.length === 0
        ? ''
        : failed.length
          ? `; ${failed.join('; ')}`
          : tell.length > 1
            ? '; every pane was told'
            : `; ${holder} was reminded`;
    const what = was
      ? `resumed (it had finished: ${was.reason})`
      : st.paused
        ? 'resumed (it was paused)'
        : st.stalled
          ? 'resumed (it had stalled)'
          : 'it was not finished or paused';
    return { ok: true, message: `${what}; ${holder} has the turn${told}`, current_turn: holder };
  }

  /**
   * A kick-off (`baton start`, `baton up --topic`): the topic is typed to the turn holder as the opening of
   * its turn, with how to answer through baton, and archived as a person's message (user_NNNN, kickoff).
   * The turn does not move; its clock starts again, so reminders count from the topic.
   */
  async start(topic: string, request: string): Promise<Reply> {
    const st = this.stage.bus.state();
    if (st.finished)
      return {
        ok: false,
        message: `the conversation has finished (${st.finished.reason}); "baton resume" continues it, then start`,
      };
    const holder = st.current_turn;
    const reply = await this.send(
      holder,
      topic,
      'task',
      request,
      kickoffHint(this.stage.config, holder, st.pending_reply_to),
      { kickoff: true },
    );
    if (!reply.ok) return reply;
    await this.stage.bus.update((s) => ({
      ...s,
      turn_started_at: new Date().toISOString(),
      nudges: 0,
      stalled: false,
    }));
    this.stage.resumed();
    return {
      ...reply,
      message: `${reply.message}: ${holder} opens the conversation${st.paused ? ' (it is paused: "baton resume" lets messages through)' : ''}`,
    };
  }

  /** A person's message (`baton send`): user_NNNN in the archive, typed into the agent's pane, no turn moved. */
  async send(
    to: string,
    content: string,
    type: string,
    request: string,
    hint?: string,
    extra: Record<string, unknown> = {},
  ): Promise<Reply> {
    const { config, bus } = this.stage;
    if (!config.agents[to]) return { ok: false, message: `unknown agent "${to}" (agents: ${config.order.join(', ')})` };
    // Done already (a daemon killed after typing, before answering)? Then say so; typed but unstamped: flag it.
    let record = await bus.findPersonMessage(request);
    if (record?.delivered_at) return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
    const ready = await this.stage.ready(to);
    if (!ready.ok) {
      const running = this.stage.oneshot ? ': nothing is running for this conversation; start it with "baton up"' : '';
      // `unavailable`: nothing was done and trying again later may work (`up --topic` waits for the agent).
      return {
        ok: false,
        message: `not sent: ${to} cannot take it now (${ready.reason})${running}`,
        unavailable: true,
      };
    }
    const redelivered = record !== null;
    record ??= await bus.archivePersonMessage((id) => personRecord(id, to, content, type, request, extra));
    const text = render(
      { id: record.id, from: 'user', to, reply_to: null, type, content, redelivered },
      config.delivery.template,
      hint ?? userHint(bus.state()),
    );
    const agent = config.agents[to]!;
    const typed = await this.stage.typist.type(agent, ready.pane, text, this.stage.typist.enterDelay(agent));
    if (!typed.ok)
      return {
        ok: false,
        message: `${record.id} is archived but its typing was not confirmed (${typed.error}); look at ${to}'s pane before sending it again`,
      };
    await bus.stamp(withReceipt(stamped(record, typed.value, redelivered), this.stage.receiptFor(record.id)));
    await bus.events.emit('sent', { id: record.id, to, ...extra, ...(redelivered ? { redelivered: true } : {}) });
    this.stage.log.success(`${record.id} user → ${to}`);
    return { ok: true, message: `${record.id} typed into ${to}'s pane`, id: record.id };
  }

  private async approveAll(req: Extract<Request, { op: 'approve' }>, name: string): Promise<Reply> {
    const bus = this.stage.bus;
    // Approved already by this very request (a daemon killed before it answered): say so again.
    const lastId = bus.state().last_message_id;
    const last = lastId ? await bus.record(lastId) : null;
    if (!req.all && last?.approved_by === name)
      return { ok: true, message: `${req.file} approved as ${last.id}`, id: last.id };
    if (!req.all && !req.file) return { ok: false, message: 'name a pending file, or --all' };
    const targets = req.all ? await bus.approvals() : [await this.findApproval(req.file ?? '')];
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

  private async approve(a: Approval, request: string): Promise<Reply> {
    const bus = this.stage.bus;
    const examined = await bus.examineApproval(a);
    if (examined.kind === 'gone') return { ok: false, message: `${a.key} is gone` };
    if (examined.kind === 'invalid')
      return { ok: false, message: `${a.key} is no longer a valid message (${examined.reason}); reject it` };
    const d = decide(bus.state(), a.direction, this.stage.rules);
    if (d.action !== 'deliver') return { ok: false, message: `${a.key} cannot be delivered now: ${d.reason}` };
    const took = await this.stage.take(a, { approved_by: request });
    if (took.kind === 'unavailable')
      return {
        ok: false,
        message: `${a.key} waits: ${a.direction.to}'s pane is unavailable; approve again when it is back`,
      };
    if (took.kind === 'refused') return { ok: false, message: `${a.key} cannot be delivered now: ${took.reason}` };
    if (took.kind === 'gone' || took.kind === 'changed')
      return {
        ok: false,
        message: `${a.key} ${took.kind === 'gone' ? 'is gone' : 'changed meanwhile; approve it again'}`,
      };
    await bus.events.emit('approved', { file: a.key, id: took.id });
    return {
      ok: true,
      message: `${a.key} approved as ${took.id}${took.kind === 'typing' ? ' (typing it is being retried)' : ''}`,
      id: took.id,
    };
  }

  /** Resolve FILE as named in pending/: `<direction>/<name>`, or a bare name when only one folder has it. */
  private async findApproval(file: string): Promise<Approval | string> {
    const all = await this.stage.bus.approvals();
    const hits = all.filter((p) => p.key === file || p.name === file);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1)
      return `"${file}" is in more than one folder: name it as ${hits.map((h) => h.key).join(' or ')}`;
    return all.length
      ? `no pending file "${file}" (pending: ${all.map((p) => p.key).join(', ')})`
      : `no pending file "${file}" (nothing is pending)`;
  }
}
