#!/usr/bin/env node
// Installs the real Claude Code client, pinned, on demand into a cache folder (it is no dependency of
// baton: only the end-to-end test uses it) and prints the path of its `claude` binary on stdout.
// Idempotent: an install already in place is used as it is. The install goes into a staging folder
// renamed into place when complete, so an interrupted install never passes for a finished one.
//
//   node scripts/claude-code.mjs            # prints /…/.cache/claude-code-2.1.197/node_modules/.bin/claude
//   BATON_CLAUDE_CACHE=/elsewhere node scripts/claude-code.mjs
//
// Exit 1 (with npm's output on stderr) when the install fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '2.1.197';
const PACKAGE = '@anthropic-ai/claude-code';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cache = resolve(process.env.BATON_CLAUDE_CACHE || join(root, '.cache', `claude-code-${VERSION}`));
const bin = join(cache, 'node_modules', '.bin', 'claude');

/** The pinned version is installed in `dir` and its binary runs (not the placeholder its postinstall replaces). */
function installed(dir) {
  const pkg = join(dir, 'node_modules', ...PACKAGE.split('/'), 'package.json');
  try {
    if (JSON.parse(readFileSync(pkg, 'utf8')).version !== VERSION) return false;
  } catch {
    return false;
  }
  const r = spawnSync(join(dir, 'node_modules', '.bin', 'claude'), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  return r.status === 0 && r.stdout.includes(VERSION);
}

function fail(message) {
  process.stderr.write(`claude-code: ${message}\n`);
  process.exit(1);
}

if (!installed(cache)) {
  if (existsSync(cache)) rmSync(cache, { recursive: true, force: true }); // a broken or other version
  const staging = `${cache}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // A package.json of its own, so npm neither walks up into the repository's nor records anything there.
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'claude-code-cache', private: true }, null, 2)}\n`);
  process.stderr.write(`claude-code: installing ${PACKAGE}@${VERSION} into ${cache}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    // The native binary comes as an optional dependency that its postinstall script puts in place.
    ['install', '--prefix', staging, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--include=optional', '--ignore-scripts=false', '--loglevel=error', `${PACKAGE}@${VERSION}`],
    // No TTY needed: stdin closed, npm's output to our stderr (stdout carries only the path).
    { cwd: staging, stdio: ['ignore', 2, 2], env: { ...process.env, npm_config_update_notifier: 'false', npm_config_progress: 'false' } },
  );
  if (r.error) {
    rmSync(staging, { recursive: true, force: true });
    fail(`cannot run npm: ${r.error.message}`);
  }
  if (r.status !== 0 || !installed(staging)) {
    rmSync(staging, { recursive: true, force: true });
    fail(`npm install ${PACKAGE}@${VERSION} failed (exit ${r.status ?? r.signal})`);
  }
  mkdirSync(dirname(cache), { recursive: true });
  try {
    renameSync(staging, cache);
  } catch (err) {
    // Another install finished first: use it.
    rmSync(staging, { recursive: true, force: true });
    if (!installed(cache)) fail(`cannot move the install into ${cache}: ${err.message}`);
  }
}
process.stdout.write(`${bin}\n`);
