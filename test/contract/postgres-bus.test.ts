/** The Bus contract against the PostgreSQL bus, on a real server this file starts in a temp folder. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { testBus } from './bus.contract.js';

let pg: Postgres;
beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.destroy();
});

let n = 0;
testBus(
  'postgres',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-contract-pg-'));
    const configFile = join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } },
        directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
        inbox: { settle_ms: 200 },
        bus: { kind: 'postgres', url: pg.url, conversation: `contract-${process.pid}-${n++}` },
      }),
    );
    return { configFile, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  { atomicStep: true },
);
