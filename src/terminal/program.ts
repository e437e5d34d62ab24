/** The program a command line runs, and whether it is installed: for agent commands and pane checks. */
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';

/**
 * The program a shell command line would run first, skipping `VAR=value` prefixes and `exec`, with its
 * quotes removed (`'/opt/my tools/codex' --yolo` → `/opt/my tools/codex`). Also takes tmux's quoted form
 * of a pane's start command (`"bash --norc -i"`).
 */
export function programOf(command: string): string | undefined {
  const line = command.trim().replace(/^"(.*)"$/s, '$1');
  // Shell words, as far as quotes go: 'single', "double" (with \" inside), or bare.
  for (const m of line.matchAll(/(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+))/g)) {
    const quoted = m[1] ?? m[2]?.replace(/\\(.)/g, '$1');
    const word = quoted ?? m[3]!;
    if (quoted === undefined && (word === 'exec' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) continue;
    return word;
  }
  return undefined;
}

/** The program's name without its folder: `/bin/bash` → `bash`. */
export const programName = (command: string): string => basename(programOf(command) ?? '');

export function onPath(program: string, cwd: string, path = process.env.PATH ?? ''): boolean {
  const candidates = program.includes('/')
    ? [resolve(cwd, program)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, program));
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
