#!/usr/bin/env node
/**
 * The `baton` command (package.json bin): everything is in cli/main.ts — except `baton hook`, which an
 * agent's hooks run before each prompt reaches the model, so it loads only its own small module, and a bare
 * `baton --version`, which loads only the version (main.ts answers it the same way, with every command's spec).
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
