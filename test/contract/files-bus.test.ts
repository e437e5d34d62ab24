/** The Bus contract against the files bus (the embedded default), in a temp folder. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testBus } from './bus.contract.js';

testBus('files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-contract-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      inbox: { settle_ms: 200 },
    }),
  );
  return { configFile, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});
