#!/usr/bin/env node
// The import rules (.dependency-cruiser.cjs: no cycle, dependencies point one way, core/ pure, bus
// implementations private), checked by `npm run lint` — so by `npm test` and CI too. In node, so it runs
// where only node and npm are on PATH. The checker has packages of its own (tools/depcruise: dependency-cruiser
// with a TypeScript 6, since the project's TypeScript 7 has no compiler API), installed here when missing or
// older than their lock file: the unit tests once did this, and a fresh clone's first `npm run test:unit`
// went to the network for a linter.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools', 'depcruise');
const installed = join(tools, 'node_modules', '.package-lock.json');
const lock = join(tools, 'package-lock.json');
if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
  process.stderr.write('[lint] installing the import-rule checker (npm ci in tools/depcruise)…\n');
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  execFileSync(cmd, [...args, 'ci', '--prefix', tools, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
const bin = join(tools, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
let out;
try {
  out = execFileSync(process.execPath, [bin, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
} catch (err) {
  process.stdout.write(err.stdout ?? '');
  process.exit(1);
}
// A checker that found nothing to check also finds no violation: it must have read the tree.
if (!/no dependency violations found \(\d{2,} modules/.test(out)) {
  process.stdout.write(out);
  process.stderr.write('[lint] the import-rule checker read almost no module: is src/ there?\n');
  process.exit(1);
}
process.stdout.write(out);
