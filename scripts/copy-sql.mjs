// npm run build, after tsc: the PostgreSQL bus's migrations (src/bus/postgres/migrations/*.sql) go beside
// the module that reads them (dist/bus/postgres/migrate.js reads ./migrations/), so they ship in the
// package with dist/. tsc copies no file that is not TypeScript.
import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const from = join(root, 'src', 'bus', 'postgres', 'migrations');
cpSync(from, join(root, 'dist', 'bus', 'postgres', 'migrations'), {
  recursive: true,
  filter: (src) => src === from || src.endsWith('.sql'),
});
