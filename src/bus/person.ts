/**
 * A person's messages (`baton send`, `baton start`): archived as user_NNNN, with a counter of their own
 * beside the agents' msg_NNNN, and no turn moved. The request that made one finds it again, so a daemon
 * killed after typing it, before answering the request, does not type it twice.
 */
import type { ArchiveRecord } from '../core/record.js';

/** What a person's `send` and `start` store (daemon/person.ts). */
export interface PersonMessages {
  /**
   * The person's message `request` made already, if it did (a daemon killed before answering it). Looks
   * at the newest person's messages only (the files bus: the last 20). Reads only.
   */
  findPersonMessage(request: string): Promise<ArchiveRecord | null>;
  /**
   * Archive a person's message under the next user_NNNN, as `make` builds it for that ID. Needs the lease. No
   * ID is given twice, however many daemons archive at once (PostgreSQL: the counter is taken in the archiving
   * transaction). Killed mid-way, the record is archived whole or not at all.
   */
  archivePersonMessage(make: (id: string) => ArchiveRecord): Promise<ArchiveRecord>;
}
