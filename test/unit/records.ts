/** Records and rules the unit tests build on: one message from a to b, and a conversation with no limits. */
import type { ArchiveRecord } from '../../src/core/record.js';

/** msg_0007 from a to b, archived and not yet stamped; `over` changes any field. */
export const aRecord = (over: Partial<ArchiveRecord> = {}): ArchiveRecord => ({
  id: 'msg_0007',
  reply_to: 'msg_0006',
  sender: 'a',
  receiver: 'b',
  type: 'message',
  content: 'hello',
  direction: 'a_to_b',
  source_file: 'm.json',
  received_at: '2026-01-01T00:00:00.000Z',
  delivered_at: null,
  ...over,
});

/** The `turns` rules of a conversation that never ends, reminds or stalls by itself. */
export const noLimits = () => ({
  max_turns: 0,
  stop_phrase: undefined,
  stop_from: undefined,
  max_duration_s: 0,
  timeout_s: 0,
  max_nudges: 3,
});
