/**
 * The real-client dialog tests (./blocked.test.ts) once more on the newest Claude Code measured, 2.1.332,
 * Claude Code alone: its Bash dialog lists four choices (No is 4), and its start-up trust dialog numbers
 * none, with "No, exit" preselected (answered by the arrows, then Enter).
 */
process.env.BATON_CLAUDE_VERSION ||= '2.1.332';
process.env.BATON_E2E_ONLY ||= 'claude';
await import('./blocked.test.js');
