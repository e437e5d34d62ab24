#!/usr/bin/env node
/**
 * The `baton` command: everything is in cli/main.ts but `baton hook`, run by an agent's hooks before each prompt
 * reaches the model, which loads only its own small module, and a bare `baton --version`, only the version.
 */
const args = process.argv.slice(2);
// Its --help is the command's own, from the rest (one help text, and help is not on an agent's critical path).
if (args[0] === 'hook' && !args.includes('--help') && !args.includes('-h')) {
  const { runHook } = await import('./cli/hook.js');
  process.exit(await runHook(args.slice(1))); // at once: a stdin that never closes must not keep it alive
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const { VERSION } = await import('./app/paths.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  await import('./cli/main.js');
}
