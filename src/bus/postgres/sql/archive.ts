/**
 * The archive: one row per record (`delivered` once stamped; turns.ts archives and stamps). What the
 * read side, recovery and a hook's receipt ask of it. `s` is the schema, quoted.
 */
import type { ArchiveRecord } from '../../../core/record.js';
import { statement } from './bind.js';
import type { Json } from './codec.js';

type Conversation = { conversation: string };

export const archiveSql = (s: string) => ({
  record: statement<Conversation & { id: string }, { record: ArchiveRecord }>(
    'archive.record',
    `SELECT record FROM ${s}.archive WHERE conversation = :conversation AND id = :id`,
  ),
  records: statement<Conversation, { record: ArchiveRecord }>(
    'archive.records',
    `SELECT record FROM ${s}.archive WHERE conversation = :conversation`,
  ),
  ids: statement<Conversation, { id: string }>(
    'archive.ids',
    `SELECT id FROM ${s}.archive WHERE conversation = :conversation`,
  ),
  /** The agents' messages: the highest counter, and how many (fewer: gaps). */
  summary: statement<Conversation, { n: number; c: number }>(
    'archive.summary',
    `SELECT coalesce(max(counter), 0)::int AS n, count(*)::int AS c FROM ${s}.archive WHERE conversation = :conversation AND NOT person`,
  ),
  /**
   * Fields a hook reports (a receipt, a turn's tokens) merged into a record; a note's `deliveries` agent by
   * agent (core/record.ts `amended`), so two machines recording their own agents' deliveries keep both.
   */
  amend: statement<Conversation & { id: string; fields: Json }>(
    'archive.amend',
    `UPDATE ${s}.archive SET record = record || :fields::jsonb
       || CASE WHEN :fields::jsonb ? 'deliveries'
            THEN jsonb_build_object('deliveries',
                   coalesce(record->'deliveries', '{}'::jsonb) || (:fields::jsonb->'deliveries'))
            ELSE '{}'::jsonb END
      WHERE conversation = :conversation AND id = :id`,
  ),

  // Recovery (recovery.ts).
  counter: statement<Conversation, { n: number }>(
    'archive.counter',
    `SELECT coalesce(max(counter), 0) AS n FROM ${s}.archive WHERE conversation = :conversation AND NOT person`,
  ),
  /** The oldest agent's record for these receivers committed and never stamped. */
  unstamped: statement<Conversation & { receivers: string[] }, { record: ArchiveRecord }>(
    'archive.unstamped',
    `SELECT record FROM ${s}.archive
      WHERE conversation = :conversation AND NOT person AND NOT delivered AND receiver = ANY(:receivers)
      ORDER BY counter LIMIT 1`,
  ),
});
