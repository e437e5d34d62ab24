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
  // Shell words, as far as quotes go: runs of bare characters, 'single' and "double" (with \" inside)
  // quoted parts, so `MODEL="claude opus"` is one word (an assignment), not `MODEL="claude` and `opus"`.
  for (const m of line.matchAll(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g)) {
    const raw = m[0];
    if (raw === 'exec' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(raw)) continue;
    return unquote(raw);
  }
  return undefined;
}

/** A shell word without its quotes: `'a b'c` → `a bc`, `"x\\"y"` → `x"y`. */
function unquote(word: string): string {
  let out = '';
  for (const m of word.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|([^'"]+)/g))
    out += m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3]!;
  return out;
}

/** The program's name without its folder: `/bin/bash` → `bash`. */
export const programName = (command: string): string => basename(programOf(command) ?? '');

export function onPath(program: string, cwd: string, path = process.env.PATH ?? ''): boolean {
  const dirs = path.split(delimiter).filter(Boolean);
  const candidates = program.includes('/') ? [resolve(cwd, program)] : dirs.map((d) => join(d, program));
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
