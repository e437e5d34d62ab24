import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real tmux servers and daemons: generous per-test time, no retries.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Two cores: at most two files at a time keeps tmux timings sane.
    maxWorkers: 2,
    // In CI (.ci/run) a JSON report too, for its one-line summary.
    ...(process.env.CI ? { reporters: ['default', 'json'], outputFile: { json: '.ci/out/vitest.json' } } : {}),
  },
});
