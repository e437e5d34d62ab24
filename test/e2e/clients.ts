/**
 * The real agent clients in the end-to-end tests: installed on demand (scripts/agent-cli.mjs; a failed
 * install fails the test, it never skips) and run offline against this folder's mocks, each with a private
 * HOME (and CODEX_HOME, GEMINI_CLI_HOME) inside the test's project folder, so nothing of the user's
 * ~/.claude, ~/.codex or ~/.gemini is read or written. The settings are offline recipes measured on the
 * real clients.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/harness.js';

/** The measured versions; BATON_CLAUDE_VERSION runs the Claude Code tests on another (e.g. the newest). */
export const VERSIONS = {
  claude: process.env.BATON_CLAUDE_VERSION || '2.1.197',
  codex: '0.169.0',
  gemini: '0.61.0',
} as const;
export type Client = keyof typeof VERSIONS;

/** Install a client (cached in .cache/) and return its binary; throws when the install fails. */
export function installClient(client: Client): string {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'scripts', 'agent-cli.mjs'), `${client}@${VERSIONS[client]}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 15 * 60_000 },
  );
  const bin = out.trim().split('\n').at(-1) ?? '';
  if (!existsSync(bin)) throw new Error(`scripts/agent-cli.mjs ${client} printed "${bin}", which does not exist`);
  return bin;
}

/** Add `env` to an agent's entry in the project's config (an agent the test starts itself, with that environment). */
export function declareEnv(project: { configFile: string }, name: string, env: Record<string, string>): void {
  const c = JSON.parse(readFileSync(project.configFile, 'utf8')) as { agents: Record<string, { env?: object }> };
  c.agents[name]!.env = { ...c.agents[name]!.env, ...env };
  writeFileSync(project.configFile, JSON.stringify(c, null, 2));
}

const CLAUDE_KEY = 'sk-ant-test-baton-e2e-0123456789abcdefghij';

/** An agent's folders: its working folder (real path), a private HOME and TMPDIR. */
function folders(dir: string, name: string): { cwd: string; home: string; tmp: string } {
  const cwd = join(dir, 'agents', name);
  const home = join(dir, 'home', name);
  const tmp = join(dir, 'tmp', name);
  for (const d of [cwd, home, tmp]) mkdirSync(d, { recursive: true });
  return { cwd: realpathSync(cwd), home, tmp };
}

/** What every client's pane gets: a private HOME, baton's bin/ and node on PATH, the agent's name. */
function baseEnv(name: string, configFile: string, home: string, tmp: string): Record<string, string> {
  return {
    HOME: home,
    USER: process.env.USER ?? 'root',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    // bin/ for `baton`, node's folder for bin/baton's `node`.
    PATH: [join(ROOT, 'bin'), dirname(process.execPath), process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(':'),
    BATON_AGENT: name,
    BATON_CONFIG: configFile,
    TMPDIR: tmp,
    XDG_RUNTIME_DIR: tmp,
  };
}

/** Claude Code without a dialog, in bypass mode, talking only to the mock at `url`. */
export function claudeAgent(
  dir: string,
  configFile: string,
  name: string,
  url: string,
): { cwd: string; env: Record<string, string> } {
  const { cwd, home, tmp } = folders(dir, name);
  const v = VERSIONS.claude;
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
      projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      hasSeenAutoDefaultNudge: true,
      lastOnboardingVersion: v,
      lastReleaseNotesSeen: v,
    }),
  );
  writeFileSync(
    join(home, '.claude', 'settings.json'),
    JSON.stringify({ skipDangerousModePermissionPrompt: true, permissions: { defaultMode: 'bypassPermissions' } }),
  );
  const env = {
    ...baseEnv(name, configFile, home, tmp),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: CLAUDE_KEY,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    CLAUDE_CODE_TMPDIR: tmp,
    // As root, bypass mode exits unless the machine says it is a sandbox.
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
  };
  return { cwd, env };
}

/**
 * Claude Code as claudeAgent, but in its default permission mode: a command that is not read-only opens a
 * permission dialog. Named, not left to the version: 2.1.332's own default, auto mode, lets edits in its
 * folder through and asks in other ways (measured).
 */
export function claudeAgentAsking(
  dir: string,
  configFile: string,
  name: string,
  url: string,
): { cwd: string; env: Record<string, string> } {
  const made = claudeAgent(dir, configFile, name, url);
  writeFileSync(
    join(made.env.HOME!, '.claude', 'settings.json'),
    JSON.stringify({ permissions: { defaultMode: 'default' } }),
  );
  return made;
}

/**
 * Codex with the offline recipe: a provider "mock" speaking the Responses API at `url`, no update check,
 * plugins, analytics or tooltips. Its folder's trust and baton's hooks come from `baton up` (-c …).
 */
export function codexAgent(
  dir: string,
  configFile: string,
  name: string,
  url: string,
): { cwd: string; env: Record<string, string> } {
  const { cwd, home, tmp } = folders(dir, name);
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.1-codex"',
      'model_provider = "mock"',
      'check_for_update_on_startup = false',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = ${JSON.stringify(url)}`,
      'wire_api = "responses"',
      'env_key = "OPENAI_API_KEY"',
      '[tui]',
      'screen_reader_detection_done = true',
      'show_tooltips = false',
      '[features]',
      'plugins = false',
      'apps = false',
      '[analytics]',
      'enabled = false',
      '[feedback]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  return {
    cwd,
    env: { ...baseEnv(name, configFile, home, tmp), CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-test-baton-e2e' },
  };
}

/** The model a Codex agent made by codexAgent asks for (its config.toml's `model`). */
export function pinCodexModel(dir: string, name: string, model: string): void {
  const file = join(dir, 'home', name, '.codex', 'config.toml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^model = .*$/m, `model = ${JSON.stringify(model)}`));
}

/** Gemini CLI with the offline recipe: an API key, the mock at `url`, no auto-update, telemetry, banner or tips. */
export function geminiAgent(
  dir: string,
  configFile: string,
  name: string,
  url: string,
): { cwd: string; env: Record<string, string> } {
  const { cwd, home, tmp } = folders(dir, name);
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ui: { hideBanner: true, hideTips: true },
      ide: { enabled: false, hasSeenNudge: true },
    }),
  );
  // CI=false: with CI set (as .ci/run sets it) Gemini CLI takes itself for a script, prints "No input
  // provided via stdin" and exits instead of starting its TUI.
  return {
    cwd,
    env: {
      ...baseEnv(name, configFile, home, tmp),
      GEMINI_CLI_HOME: home,
      GEMINI_API_KEY: 'test-baton-e2e',
      GOOGLE_GEMINI_BASE_URL: url,
      CI: 'false',
    },
  };
}
