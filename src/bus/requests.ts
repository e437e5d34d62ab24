/**
 * A person's requests (docs/protocol.md §8, §9: end, pause, resume, start, send, approve, reject, and a
 * notice for another machine's agent): a command submits one and waits for its reply (Asking); the
 * daemon takes it before acting on it, answers it, and removes it (Requests). Taken first, so a command
 * that gives up can withdraw a request only while nothing was done; removed only after its reply is
 * stored, so a daemon killed in between does it again at its next start, and the answer is never lost.
 */
import type { Reply, Request } from '../core/requests.js';

/** The daemon's side: the daemon looks for requests, steering takes and answers them, a notice forwards one. */
export interface Requests {
  /** The requests this daemon answers (PostgreSQL: its machine's), oldest first, taken ones too. Reads only. */
  requests(): Promise<string[]>;
  /**
   * Take a request so it can no longer be withdrawn, and read it (a request that is not valid comes back
   * as `{ invalid }`, to be answered with why). Null when it was withdrawn first, or was answered already
   * (a daemon killed after replying: the request is removed now). Needs the lease (FencedError without it).
   */
  takeRequest(name: string): Promise<{ name: string; request: Request | { invalid: string } } | null>;
  /** Store the reply, then remove the taken request: a crash in between never loses the answer. Needs the lease. */
  answer(taken: string, reply: Reply): Promise<void>;
  /**
   * Hand a request to the daemon that can carry it out (a notice for another machine's agent, docs/protocol.md
   * §10; on the files bus, this daemon). Nobody waits for its answer: unread replies are dropped after a minute.
   */
  forward(request: Request): Promise<void>;
}

/** The asking command's side: `baton end`, `send`, `approve` …, and the dashboard's controls. */
export interface Asking {
  /** A person's request, stored whole or not at all; returns its name (answered in order made); any number at once. */
  submit(request: Request): Promise<string>;
  /** The reply, once there is one (then removed). Null on timeout: the request stays queued. */
  awaitReply(name: string, timeoutMs: number): Promise<Reply | null>;
  /** Take an unanswered request back; false when the daemon took it already: withdrawn or acted on, never both. */
  withdraw(name: string): Promise<boolean>;
}
