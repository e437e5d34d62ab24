#!/usr/bin/env node
// Installs a real agent client, pinned, on demand into a cache folder (none is a dependency of baton:
// only the end-to-end tests use them) and prints the path of its binary on stdout.
// Idempotent: an install already in place is used as it is. The install goes into a staging folder
// renamed into place when complete, so an interrupted install never passes for a finished one.
//
//   node scripts/agent-cli.mjs claude     # prints /…/.cache/claude-code-2.1.197/node_modules/.bin/claude
//   node scripts/agent-cli.mjs codex      # @openai/codex 0.169.0 (its native binary: ~167 MB download)
//   node scripts/agent-cli.mjs gemini     # @google/gemini-cli 0.61.0 (a 21 MB pure-JS bundle)
//   node scripts/agent-cli.mjs claude@2.1.332   # another version than the measured one
//   BATON_AGENT_CACHE=/elsewhere node scripts/agent-cli.mjs codex
//
// The versions are the ones baton's screens and hooks were measured on. Exit 1 (with npm's output on
// stderr) when the install fails; exit 2 for an unknown client.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude', folder: 'claude-code' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex', folder: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini', folder: 'gemini-cli' },
};

// CLIENT or CLIENT@VERSION (another version than the measured one, e.g. the newest: claude@2.1.332).
const [name, pinned] = (process.argv[2] ?? '').split('@');
const client = CLIENTS[name] && { ...CLIENTS[name], ...(pinned ? { version: pinned } : {}) };
if (!client) {
  process.stderr.write(`agent-cli: unknown client "${name ?? ''}" (one of: ${Object.keys(CLIENTS).join(', ')})\n`);
  process.exit(2);
}
const { pkg: PACKAGE, version: VERSION } = client;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cacheRoot = resolve(process.env.BATON_AGENT_CACHE || join(root, '.cache'));
const cache = join(cacheRoot, `${client.folder}-${VERSION}`);
const binOf = (dir) => join(dir, 'node_modules', '.bin', client.bin);

/** The pinned version is installed in `dir` and its binary runs (not a placeholder a postinstall replaces). */
function installed(dir) {
  const pkg = join(dir, 'node_modules', ...PACKAGE.split('/'), 'package.json');
  try {
    if (JSON.parse(readFileSync(pkg, 'utf8')).version !== VERSION) return false;
  } catch {
    return false;
  }
  const r = spawnSync(binOf(dir), ['--version'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return r.status === 0 && r.stdout.includes(VERSION);
}

function fail(message) {
  process.stderr.write(`agent-cli: ${message}\n`);
  process.exit(1);
}

if (!installed(cache)) {
  if (existsSync(cache)) rmSync(cache, { recursive: true, force: true }); // a broken or other version
  const staging = `${cache}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // A package.json of its own, so npm neither walks up into the repository's nor records anything there.
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify({ name: `${client.folder}-cache`, private: true }, null, 2)}\n`,
  );
  process.stderr.write(`agent-cli: installing ${PACKAGE}@${VERSION} into ${cache}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    // Native binaries come as optional dependencies (Codex's, Claude Code's via its postinstall).
    // --engine-strict=false: under `npm test` npm hands its scripts this repository's engine-strict, and
    // Claude Code 2.1.332 asks for node >= 22 though its native binary runs the same on node 20.
    [
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--include=optional',
      '--ignore-scripts=false',
      '--engine-strict=false',
      '--loglevel=error',
      `${PACKAGE}@${VERSION}`,
    ],
    // No TTY needed: stdin closed, npm's output to our stderr (stdout carries only the path).
    {
      cwd: staging,
      stdio: ['ignore', 2, 2],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_progress: 'false' },
    },
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
process.stdout.write(`${binOf(cache)}\n`);
