#!/usr/bin/env node
/**
 * The `baton` command (package.json bin): everything is in cli/main.ts — except `baton hook`, which an
 * agent's hooks run before each prompt reaches the model, so it loads only its own small module.
 */
// Its --help is the command's own, from the rest (one help text, and help is not on an agent's critical path).
if (process.argv[2] === 'hook' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
  const { runHook } = await import('./cli/hook.js');
  process.exit(await runHook(process.argv.slice(3))); // at once: a stdin that never closes must not keep it alive
} else {
  await import('./cli/main.js');
}
