#!/usr/bin/env node
// The unit tier's one set-up step, in node so it runs where only node and npm are on PATH: the import-rule
// checker's own packages (tools/depcruise: dependency-cruiser with a TypeScript 6 of its own, since the
// project's TypeScript 7 has no compiler API), installed when missing or older than their lock file.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const tools = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'depcruise');
const installed = join(tools, 'node_modules', '.package-lock.json');
const lock = join(tools, 'package-lock.json');
if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
  process.stderr.write('[test] installing the import-rule checker (npm ci in tools/depcruise)…\n');
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  execFileSync(cmd, [...args, 'ci', '--prefix', tools, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
