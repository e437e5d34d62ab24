/**
 * The real Claude Code end-to-end tests (./claude.test.ts) once more on the newest Claude Code measured,
 * 2.1.332: the hooks and the screen read on the version users install today, not only on the one measured
 * first (2.1.197). It differs where it matters: it wraps a paste in `<pasted_content>` in the prompt its
 * hooks report, and a message typed while a tool ran carries another trailer.
 */
process.env.BATON_CLAUDE_VERSION ||= '2.1.332';
await import('./claude.test.js');
