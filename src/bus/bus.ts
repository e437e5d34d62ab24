/**
 * The Bus: everything baton needs from storage, behind interfaces that the files bus (bus/files/, the
 * embedded default) and the PostgreSQL bus (docs/protocol.md §10) both implement and one contract suite
 * checks (test/contract/). Each caller sees only the parts it calls, each small enough for a test to fake
 * with a plain object.
 *
 * The daemon's side (`DeliveryBus`, what `Bus.delivery()` gives a daemon):
 * - Tenure (lease.ts): the writer's lease, recovery, closing — the daemon's lifecycle.
 * - Hints (hints.ts): change hints and the re-scan behind them — the daemon's lifecycle.
 * - Queues (queues.ts): every direction's waiting messages, rejecting one, counting an agent's.
 * - TurnState, TurnStep (turns.ts): the state and changes to it; the turn step that archives a message.
 * - Records (records.ts): reading, stamping and amending archived records.
 * - Moderation (approvals.ts): moderated mode's approval queue.
 * - PersonMessages (person.ts): a person's messages, with their own counter.
 * - Requests (requests.ts): a person's requests, taken and answered; a notice forwarded.
 * - Events (events.ts): the event log the daemon appends to.
 * - Clock (clock.ts): the conversation's time, which every machine measures and stamps with.
 *
 * A command's side (`Bus`): the read side (reader.ts: Status, Liveness, Archive, Listings, Checkup,
 * EventFeed — status, log, doctor, the dashboard), Posting (queues.ts: `baton post`), Asking
 * (requests.ts: a person's request and its reply), Admin (admin.ts: `up`, `doctor --repair`). Across
 * conversations: Directory (directory.ts: every conversation of a database, `baton ls --bus`; bus/open.ts).
 *
 * Every method says what it promises when several processes (or machines) act at once, and what a kill -9
 * in the middle leaves behind. The turn rules are not here: `commit` and `update` take pure functions of
 * the current state (core/), which a bus applies under its own serialisation.
 */
import type { Logger } from '../lib/log.js';
import type { Admin } from './admin.js';
import type { Moderation } from './approvals.js';
import type { Clock } from './clock.js';
import type { EventObserver, Events } from './events.js';
import type { Hints } from './hints.js';
import type { Tenure } from './lease.js';
import type { PersonMessages } from './person.js';
import type { Posting, Queues } from './queues.js';
import type { BusReader } from './reader.js';
import type { Records } from './records.js';
import type { Asking, Requests } from './requests.js';
import type { TurnState, TurnStep } from './turns.js';

export type { Admin } from './admin.js';
export type { ListedConversation, ListedMachine, StoreListing } from './directory.js';
export type { Approval, Moderation } from './approvals.js';
export { isoAt, type Clock } from './clock.js';
export type { EventFeed, EventObserver, Events } from './events.js';
export type { Hint } from './hints.js';
export {
  FencedError,
  fenceToken,
  LeaseHeldError,
  type Holder,
  type Lease,
  type LeaseHolding,
  type Recovered,
} from './lease.js';
export type { PersonMessages } from './person.js';
export type { Posted, Posting, Queue, Queues, Rejected, Waiting } from './queues.js';
export type {
  ApprovalView,
  Archive,
  ArchiveView,
  BusCheck,
  Checkup,
  Listings,
  Liveness,
  Rejection,
  Status,
} from './reader.js';
export type { Records } from './records.js';
export type { Requests } from './requests.js';
export type { Commit, Step, TurnState, TurnStep } from './turns.js';
export { NewGeneration, StoreChanged } from './turns.js';

/** The daemon's side, whole: what one daemon uses of one conversation. */
export type DeliveryBus = Tenure &
  Hints &
  Queues &
  TurnState &
  TurnStep &
  Records &
  Moderation &
  PersonMessages &
  Requests &
  Events &
  Clock;

/** The daemon's side of a bus, as a daemon opens it. */
export interface Delivering {
  /**
   * A new daemon side; `log` gets what the bus has to say (rejections, folders replaced); `observe` is told
   * of every event its log takes while it holds the lease (a fenced daemon's events are not: they never
   * happened).
   */
  delivery(log?: Logger, observe?: EventObserver): DeliveryBus;
}

/** One conversation's storage, as a command opens it (bus/open.ts picks the kind). */
export type Bus = BusReader &
  Posting &
  Asking &
  Admin &
  Delivering & {
    readonly kind: 'files' | 'postgres';
  };
