/**
 * A person steering the conversation through the daemon: the requests of core/requests.ts (end, pause,
 * resume, start, send, approve, reject, answer), answered between deliveries, so a person's text never lands
 * between a paste and its Enter, and the state has one writer. Each answer is a Reply; what a request
 * could not do now it says at once ("not now: …") rather than leave the person waiting. This module takes
 * the requests and answers the small ones; resume.ts, person.ts (send, start), approvals.ts and answer.ts (a dialog) do the rest.
 */
import { isoAt } from '../bus/bus.js';
import { sanitize } from '../core/compose.js';
import { fail, type Reply, type Request } from '../core/requests.js';
import { isLocal } from '../config/config.js';
import { answer } from './answer.js';
import { approveAll, reject } from './approvals.js';
import { kickoff, send } from './person.js';
import { resume } from './resume.js';
import type { Stage } from './stage.js';

export class Steering {
  /** A request may be waiting (a hint said so, a re-scan found one, or nobody has looked yet). */
  expecting = true;

  constructor(private readonly stage: Stage) {}

  /** A request may have come. */
  expect(): void {
    this.expecting = true;
  }

  /** Answer every waiting request, oldest first (until the daemon stops). */
  async answer(): Promise<void> {
    this.expecting = false;
    const bus = this.stage.bus;
    for (const name of await bus.requests()) {
      if (this.stage.stopping()) return;
      const taken = await bus.takeRequest(name);
      if (!taken) continue; // withdrawn by the command that asked, or answered already
      const req = taken.request;
      let reply: Reply;
      try {
        // The request's own name (not the taken one) identifies it across a crash: see person.ts.
        reply =
          'invalid' in req
            ? fail(`not a valid request: ${req.invalid}`)
            : await this.handle(req, name.replace(/\.taken$/, ''));
      } catch (err) {
        reply = fail(`failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      await bus.answer(taken.name, reply);
    }
  }

  async handle(req: Request, name: string): Promise<Reply> {
    // A delivery not yet stamped: no other message may be delivered before it (and nothing typed into its
    // receiver's pane before its Enter: the pipeline's gate says so). Say so now rather than leave the person waiting.
    const busy = this.stage.deliveringTo();
    if (busy !== null && req.op === 'approve')
      return fail(`not now: a message to ${busy} is still being delivered (see baton status); try again when it is`);
    switch (req.op) {
      case 'end':
        return this.end(req.reason);
      case 'resume':
        return resume(this.stage, req.budget);
      case 'notice':
        return this.notice(req.to, req.text);
      case 'pause':
        return this.pause();
      case 'start':
        return kickoff(this.stage, req.topic, name);
      case 'send':
        if (req.to === 'all') return this.stage.notes.send({ content: req.content, type: req.type }, name);
        return send(this.stage, { to: req.to, content: req.content, type: req.type, request: name });
      case 'note':
        return this.stage.notes.forwarded(req.id, req.to);
      case 'approve':
        return approveAll(this.stage, req, name);
      case 'reject':
        return reject(this.stage, req);
      case 'answer':
        return answer(this.stage, req);
    }
  }

  private async end(reason: string | undefined): Promise<Reply> {
    const state = this.stage.bus.state();
    if (state.finished)
      return { ok: true, message: `already finished (${state.finished.reason})`, finished: state.finished };
    await this.stage.finish('ended', reason);
    const { finished } = this.stage.bus.state();
    return { ok: true, message: 'the conversation has finished; later files are held', finished };
  }

  /** From another machine's daemon (docs/protocol.md §10): typed as it is, baton's own words. */
  private async notice(to: string, text: string): Promise<Reply> {
    if (!isLocal(this.stage.config, to)) return fail(`${to} is not an agent of this machine`);
    const err = await this.stage.typing.notice(to, sanitize(text));
    return err ? fail(`could not tell ${to}: ${err}`) : { ok: true, message: `${to} was told` };
  }

  private async pause(): Promise<Reply> {
    const state = this.stage.bus.state();
    if (state.finished)
      return {
        ok: true,
        message: `it has finished (${state.finished.reason}): nothing is delivered anyway; "baton resume" continues it`,
      };
    if (state.paused)
      return { ok: true, message: `already paused (since ${state.paused.at}); "baton resume" continues it` };
    await this.stage.bus.update((s) => ({ ...s, paused: { at: isoAt(this.stage.bus.now()) } }));
    await this.stage.bus.events.emit('paused', { current_turn: state.current_turn });
    this.stage.log.info('paused: deliveries wait until "baton resume"');
    return {
      ok: true,
      message:
        'paused: messages wait in their folders (the agents are not told); "baton resume" continues. ' +
        `${state.current_turn} has the turn`,
    };
  }
}
