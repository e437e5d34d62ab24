/**
 * The archive as the daemon writes it after a turn step: the stamp once a message is typed and its submit
 * confirmed, and what the agents' hooks add later (a receipt, a turn's tokens). Records are made by the
 * turn step (turns.ts) and by a person's messages (person.ts), never here. Writes need the writer's lease
 * (FencedError without it).
 */
import type { Amendment, ArchiveRecord } from '../core/record.js';

/** Reading, stamping and amending archived records: the courier, receipts, the conductor, steering. */
export interface Records {
  /** An archived record (an agent's or a person's) as stored now; null when there is none. */
  record(id: string): Promise<ArchiveRecord | null>;
  /**
   * Stamp a delivered record (delivered_at, confirmed, redelivered), once: a record already stamped keeps
   * its stamp, and fields added to it before (a receipt that came first) are kept. Killed mid-way, the
   * record is stamped or not; one left unstamped is what recovery reports as a delivery cut short.
   */
  stamp(record: ArchiveRecord): Promise<void>;
  /**
   * Merge daemon-owned fields into an archived record as one write (a receipt's `received`, `confirmed`;
   * `turn_tokens`; `redelivered`), never its ID, sender, receiver, content or stamp. False when there is none.
   */
  amend(id: string, fields: Amendment): Promise<boolean>;
}
