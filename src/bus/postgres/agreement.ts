/**
 * One config per conversation across machines (docs/protocol.md §10): copies that disagreed routed a message into
 * an unrelated local session. The first daemon records its config's fingerprint (config/fingerprint.ts) with its
 * machine's name; a daemon or `baton up` joining while another machine's daemon runs must bring the same one, or
 * is refused (exit 2) naming the keys that differ. To change it: stop every machine's daemon, start again.
 * docs/decisions/0007-what-the-database-proves.md.
 */
import { ConfigError, type Config } from '../../config/config.js';
import { differences, fingerprintOf } from '../../config/fingerprint.js';
import type { Logger } from '../../lib/log.js';
import { tx, type Db } from './db.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';
import { hostViews } from './views.js';

export interface Joining {
  db: Db;
  pg: Pg;
  config: Config;
  /** Null: only check (`baton up`, before its daemon starts); a daemon records its config when it may. */
  log: Logger | null;
}

/** What joining found: the same config; or this one recorded (first, or replacing one no daemon runs with). */
export type Agreement = { kind: 'same' } | { kind: 'recorded'; replaced: string[] } | { kind: 'unchecked' };

/** Agree on the conversation's config, or throw ConfigError naming what differs (see the module's comment). */
export function agreeOnConfig({ db, pg, config, log }: Joining): Promise<Agreement> {
  const mine = fingerprintOf(config);
  return tx(db, async (c): Promise<Agreement> => {
    const [row] = (await run(c, pg.sql.conversations.config, { conversation: pg.conversation })).rows;
    if (!row) return { kind: 'unchecked' }; // no conversation yet: its first daemon makes it and records
    const differ = row.config ? differences(row.config, mine) : [];
    if (row.config && !differ.length) return { kind: 'same' };
    if (row.config) {
      const live = (await hostViews(db, pg, config)).filter((h) => h.alive && h.host !== pg.host).map((h) => h.host);
      if (live.length) throw refusal(config, pg, { differ, by: row.config_host, at: row.config_at, live });
    }
    if (!log) return { kind: 'unchecked' };
    await run(c, pg.sql.conversations.recordConfig, {
      conversation: pg.conversation,
      config: Json.of(mine),
      host: pg.host,
    });
    if (differ.length)
      log.info(
        `recorded this machine's config for conversation "${pg.conversation}"; it differs from the one ` +
          `${row.config_host ?? 'another machine'} recorded (no other machine's daemon runs): ${differ.join(', ')}`,
      );
    return { kind: 'recorded', replaced: differ };
  });
}

function refusal(
  config: Config,
  pg: Pg,
  r: { differ: string[]; by: string | null; at: Date | null; live: string[] },
): ConfigError {
  const when = r.at ? ` at ${r.at.toISOString()}` : '';
  return new ConfigError(
    config.file ?? 'the default config',
    [
      `this machine's config differs from the one conversation "${pg.conversation}" runs with, recorded by host ` +
        `${r.by ?? '(unknown)'}${when} (daemons running on ${r.live.join(', ')}): ${r.differ.join(', ')} differ. ` +
        "Use the same config on every machine; to change it, stop every machine's daemon and start them with " +
        'the new one (the first to start records it), or "baton up --fresh" starts a new conversation',
    ],
    false,
  );
}
