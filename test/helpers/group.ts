/**
 * Group conversations (docs/protocol.md §11) in tests: what each pane should have read, byte for byte, computed
 * from the archive with the same pure functions the daemon uses — the catch-up rule (core/catch-up.ts) and
 * the typed text (core/compose.ts) — and the archive as a test compares it across runs.
 */
import { CATCH_UP_MAX_BYTES, CATCH_UP_MESSAGE_MAX_BYTES } from '../../src/config/schema.js';
import { catchUp, type CatchUpRules } from '../../src/core/catch-up.js';
import { render, replyHint } from '../../src/core/compose.js';
import type { ArchiveRecord } from '../../src/core/record.js';
import { archivedRecords } from './harness.js';

/** The catch-up rules of a config that says nothing about them. */
export const DEFAULT_RULES: CatchUpRules = {
  mode: 'full',
  maxBytes: CATCH_UP_MAX_BYTES,
  messageMaxBytes: CATCH_UP_MESSAGE_MAX_BYTES,
};

/** Every record of a files-bus archive (agents' and a person's). */
export function allRecords(messageDir: string): ArchiveRecord[] {
  return archivedRecords(messageDir, /^(msg|user)_\d+\.json$/) as unknown as ArchiveRecord[];
}

/** The text typed for agent message `r` into its receiver's pane, catch-up included (not flagged redelivered). */
export function expectedText(
  records: ArchiveRecord[],
  r: ArchiveRecord,
  conv: { policy: 'round_robin' | 'handoff' | 'alternate'; order: string[]; rules?: CatchUpRules },
): string {
  const block = catchUp({
    history: records,
    agent: r.receiver,
    current: r.id,
    agents: conv.order.length,
    rules: conv.rules ?? DEFAULT_RULES,
  }).text;
  return render(
    {
      id: r.id,
      from: r.sender,
      to: r.receiver,
      reply_to: r.reply_to,
      type: r.type,
      subject: r.subject,
      content: r.content,
    },
    undefined,
    replyHint({ turns: { policy: conv.policy }, order: conv.order }, r.receiver),
    block,
  );
}

/** What makes two runs' archives the same conversation: IDs, who to whom, reply_to, type and content. */
export const conversationOf = (records: ArchiveRecord[]) =>
  records
    .filter((r) => r.id.startsWith('msg_'))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((r) => ({
      id: r.id,
      sender: r.sender,
      receiver: r.receiver,
      reply_to: r.reply_to,
      type: r.type,
      content: r.content,
    }));
