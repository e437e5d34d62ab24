/**
 * What a person's requests (steering.ts and the modules it hands them to: resume.ts, person.ts,
 * approvals.ts) may use of the daemon: its bus, the typing pipeline, and a few of its moves. Built from the
 * daemon's parts (wiring.ts), each of them made before steering is.
 */
import type {
  Approval,
  Clock,
  Events,
  Moderation,
  PersonMessages,
  Records,
  Requests,
  TurnState,
  Waiting,
} from '../bus/bus.js';
import type { FinishReason } from '../core/conversation.js';
import type { Received } from '../core/receipt.js';
import type { Typist } from '../terminal/typist.js';
import type { Notes } from './notes.js';
import type { Pipeline } from './pipeline.js';
import type { Take } from './take.js';
import type { Uses } from './context.js';

export interface Stage extends Uses<'config' | 'log' | 'rules' | 'oneshot'> {
  readonly bus: Requests & TurnState & Records & Moderation & PersonMessages & Events & Clock;
  /** Everything typed into a pane goes through it: its gate, a person's message, a notice (null when typed, else why not). */
  readonly typing: Pick<Pipeline, 'gate' | 'advance' | 'notice'>;
  /** The daemon is stopping: the requests not yet taken are left for the next one. */
  stopping(): boolean;
  /** The agent a delivery not yet stamped is for: no other message may be taken before it is stamped. */
  deliveringTo(): string | null;
  /** Deliver a waiting message or an approval now; `extra` goes into its record. */
  take(w: Waiting | Approval, extra?: Record<string, unknown>): Promise<Take>;
  /** A receipt the agent's hook gave before the message's stamp (taken: the stamp records it). */
  receiptFor(id: string): Received | undefined;
  /** End the conversation: the state says why, every pane is told. */
  finish(reason: FinishReason, note?: string): Promise<void>;
  /** The conversation was resumed or its turn clock restarted: plan again, look at held messages again. */
  resumed(): void;
  /** A person's notes to every agent (`send --to all`). */
  readonly notes: Pick<Notes, 'send' | 'forwarded'>;
  /** An agent's screen, and a dialog's keys (answer.ts): read and pressed through the typist's fence. */
  readonly keys: Pick<Typist, 'look' | 'press'>;
  /** A person answered this agent's dialog: its screen is looked at again soon (dialogs.ts). */
  answered(agent: string): void;
}
