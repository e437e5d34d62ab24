#!/usr/bin/env node
/**
 * The `baton` command (package.json bin): everything is in cli/main.ts — except `baton hook`, which an
 * agent's hooks run before each prompt reaches the model, so it loads only its own small module.
 */
if (process.argv[2] === 'hook') {
  const { runHook } = await import('./cli/hook.js');
  process.exitCode = await runHook(process.argv.slice(3));
} else {
  await import('./cli/main.js');
}
