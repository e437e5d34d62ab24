/**
 * The CLI starts light: `baton --help`, `--version`, `baton <command> --help`, a mistyped command and
 * `baton hook` (on an agent's critical path, before each prompt) load no package. Every command's modules
 * once loaded at start — zod, consola, execa, pg and the whole app — and `baton --version` took 0.25 s on a
 * quiet machine, 1.2–1.9 s on a loaded one (node alone: 0.04 s). A command's module holds its help and
 * imports what it runs inside its `run`; this follows the static imports (what loads before anything runs)
 * from the entry points and names the chain to any package reached.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/**
 * The specifiers a module imports statically, as compiled: `import type` and imports whose names are all
 * types are erased by tsc (no verbatimModuleSyntax), `import('…')` loads only when it runs.
 */
function staticImports(source: string): string[] {
  const out: string[] = [];
  const clause =
    /^(import|export)\s+(type\s+)?((?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+))\s+from\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(clause)) {
    const [, , typeOnly, names, spec] = m as unknown as [string, string, string | undefined, string, string];
    if (typeOnly) continue;
    const braces = /\{([^}]*)\}/.exec(names);
    const outside = names.replace(/\{[^}]*\}/, '').replace(/[\s,]/g, '');
    const listed = (braces?.[1] ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (braces && !outside && listed.length && listed.every((n) => n.startsWith('type '))) continue;
    out.push(spec);
  }
  for (const m of source.matchAll(/^import\s+['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  return out;
}

/** Every module `entry` loads before its code runs, each with the chain that reached it. */
function closure(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const todo = [entry];
  for (let file = todo.pop(); file; file = todo.pop()) {
    if (!file.startsWith('src/')) continue; // a package or a node built-in: a leaf
    for (const spec of staticImports(readFileSync(join(ROOT, file), 'utf8'))) {
      const target = spec.startsWith('.')
        ? relative(ROOT, resolve(dirname(join(ROOT, file)), spec.replace(/\.js$/, '.ts')))
        : spec;
      if (target.startsWith('src/') && !existsSync(join(ROOT, target))) throw new Error(`${file}: no ${target}`);
      if (seen.has(target)) continue;
      seen.set(target, [...seen.get(file)!, target]);
      todo.push(target);
    }
  }
  return seen;
}

/** The packages `entry` loads at start, each as the chain of imports that reaches it. */
const packagesOf = (entry: string) =>
  [...closure(entry)]
    .filter(([m]) => !m.startsWith('src/') && !m.startsWith('node:'))
    .map(([, chain]) => chain.join(' → '));

describe('the CLI starts light', () => {
  it('help, --version and every command’s --help load no package (src/cli/main.ts and what it imports)', () => {
    expect(packagesOf('src/cli/main.ts')).toEqual([]);
  });

  it('baton hook loads no package', () => {
    expect(packagesOf('src/cli/hook.ts')).toEqual([]);
  });

  it('reads imports as tsc compiles them', () => {
    const source = [
      "import { a, type B } from './a.js';",
      "import type { C } from './c.js';",
      "import { type D, type E } from './d.js';",
      "import {\n  f,\n  g,\n} from 'pkg';",
      "import * as h from 'node:fs';",
      "import i, { type J } from './i.js';",
      "export { k } from './k.js';",
      "export type { L } from './l.js';",
      "import './side.js';",
      "const m = await import('./lazy.js');",
    ].join('\n');
    expect(staticImports(source)).toEqual(['./a.js', 'pkg', 'node:fs', './i.js', './k.js', './side.js']);
  });

  it('finds a package however deep it is reached', () => {
    // The check itself, on today's full app: the daemon's modules do load packages.
    expect(packagesOf('src/daemon/serve.ts').length).toBeGreaterThan(0);
  });
});
