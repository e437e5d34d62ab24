/**
 * The dashboard's JSON, as the server sends it and the page reads it: the one description both sides are type-checked
 * against (src/ui/* and web/app.ts). Declarations only, so the page's build can use it without compiling server code.
 */

export type { AgentStatus, StatusReport } from '../app/status/report.js';
import type { Row } from '../app/status/listing.js';

/** What the page shows of one message. Content is cut at 65,536 characters (`truncated`; transcript.ts). */
export interface Bubble {
  id: string;
  sender: string;
  receiver: string;
  delivered_at: string | null;
  reply_to: string | null;
  type: string;
  subject: string | null;
  content: string;
  truncated: boolean;
  /** Length of the whole content, in characters. */
  length: number;
  redelivered: boolean;
  confirmed: string | null;
  /** Reminders sent to the receiver while it owed a reply to this message. */
  nudges: number;
}

/** A run of the transcript: `items` are positions start … start + items.length - 1 of `total`. */
export interface Page {
  start: number;
  total: number;
  items: Bubble[];
}

/** What a `baton` event carries: the events.jsonl line, and the message it is about (with its position). */
export interface FeedEvent {
  e: Record<string, unknown>;
  bubble?: Bubble | null;
  pos?: number;
  nudges?: number;
}

export interface RejectedItem {
  stored_as: string;
  file: string | null;
  reason: string | null;
  direction: string | null;
  rejected_at: string | null;
}

export interface PendingItem {
  /** As `baton approve` takes it: "<direction>/<name>". */
  file: string;
  from: string;
  to: string;
  type: string | null;
  subject: string | null;
  content: string;
}

/** What the page needs to know about the conversation, once per load. */
export interface Conversation {
  message_dir: string;
  policy: string;
  moderated: boolean;
  max_turns: number;
  agents: Array<{ name: string; kind: string }>;
  directions: Array<{ name: string; from: string; to: string }>;
  types: readonly string[];
}

/** GET /api/snapshot: where the page starts; then it follows /api/stream from `cursor`. */
export interface Snapshot {
  cursor: string;
  conversation: Conversation;
  status: StatusReport | null;
  screens: Record<string, string | null>;
  messages: Page;
  /** The last events before the cursor (up to 40, oldest first), so the events panel starts filled. */
  events: Array<Record<string, unknown>>;
}

/** A control's answer (POST /api/send, end, resume, approve, reject), as the CLI commands get it. */
export interface ControlReply {
  ok: boolean;
  message: string;
  /** The message a send made (user_NNNN); a note to all has it even when some panes still wait for it. */
  id?: string;
}

/** One row of the overview: `baton ls --json`'s row, with where its conversation view is on this server. */
export type OverviewRow = {
  /** Its id on this server (a hash of its registry key), and its view's address: `/c/<id>/`. */
  id: string;
  path: string;
} & Row;

/** GET /all/api/listing, and each `listing` event of /all/api/stream: every conversation of the machine. */
export interface Overview {
  /** The registry's folder ($XDG_STATE_HOME/baton). */
  registry: string;
  daemon: { pid: number; host: string; started_at: string; stay: boolean } | null;
  /** The registry's own problem (it does not parse), or null. */
  problem: string | null;
  conversations: OverviewRow[];
  /** The id of the conversation this server also shows at `/` (baton ui in a project), or null. */
  home: string | null;
}
