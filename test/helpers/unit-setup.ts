/**
 * Run before each unit test file. The unit tier reuses its two worker processes from file to file
 * (vitest.config.ts: isolate: false) — a new process per file cost ~5 s of a 15 s run in start-up alone on
 * two loaded cores — so what a process held per file is given back here: fresh modules (every src/ module is
 * evaluated anew for each file: one file's module state — a lock's refresh timer, a logger's level, a
 * vi.mock of node:fs/promises — is never the next file's), the real clock, and the environment the worker
 * started with.
 */
import { vi } from 'vitest';

// vitest's own variables (VITEST_WORKER_ID, …) are its to set for each file.
const ours = (k: string) => !k.startsWith('VITEST');
const g = globalThis as { batonUnitEnv?: Record<string, string | undefined> };
g.batonUnitEnv ??= { ...process.env };
const first = g.batonUnitEnv;
for (const k of Object.keys(process.env)) if (ours(k) && !(k in first)) delete process.env[k];
for (const [k, v] of Object.entries(first)) if (ours(k)) process.env[k] = v;

vi.useRealTimers();
vi.resetModules();
