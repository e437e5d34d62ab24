import { defineConfig } from 'vitest/config';

/**
 * Four tiers, each a vitest project (`npm run test:unit`, `test:integration`, `test:e2e`, `test:browser`;
 * `npm test` sets up the machine and runs them all):
 * - unit: pure functions and parts against fakes — no tmux, no PostgreSQL, no browser, no network, no
 *   build; runs on a PATH that holds only node and npm, in seconds.
 * - integration: the Bus contract on both buses and everything against a real tmux server and a real
 *   PostgreSQL the tests start in temp folders (run against dist/: build first).
 * - e2e: the real agent CLIs (installed into .cache/ on first use) against mocks of their APIs.
 * - browser: the dashboard in Debian's Chromium.
 */
const tier = (name: string, include: string[], more: object = {}) => ({
  extends: true as const,
  test: { name, include, ...more },
});

export default defineConfig({
  test: {
    // Integration tests start real tmux servers and daemons: generous per-test time, no retries.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Two cores: at most two files at a time keeps tmux timings sane.
    maxWorkers: 2,
    projects: [
      // The unit tier's two workers run file after file (no process per file: start-up alone was a third of the
      // run); test/helpers/unit-setup.ts gives each file fresh modules, the real clock and the first environment.
      tier('unit', ['test/unit/**/*.test.ts'], { isolate: false, setupFiles: ['test/helpers/unit-setup.ts'] }),
      tier('integration', ['test/contract/**/*.test.ts', 'test/integration/**/*.test.ts']),
      tier('e2e', ['test/e2e/**/*.test.ts']),
      tier('browser', ['test/browser/**/*.test.ts']),
    ],
    // In CI (.ci/run) a JSON report too, for its one-line summary.
    ...(process.env.CI ? { reporters: ['default', 'json'], outputFile: { json: '.ci/out/vitest.json' } } : {}),
  },
});
