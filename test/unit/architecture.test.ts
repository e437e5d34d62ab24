/**
 * The tree is the architecture: import rules checked by dependency-cruiser
 * (.dependency-cruiser.cjs: no cycle, dependencies point one way, core/ pure, bus implementations
 * private), and modules small enough to read in one sitting.
 */
import { execa } from 'execa';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/harness.js';

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });

describe('architecture', () => {
  it('imports point one way with no cycle (dependency-cruiser)', async () => {
    // tools/depcruise/ has its own node_modules (the test command installs it): see its package.json.
    const r = await execa(
      join(ROOT, 'tools', 'depcruise', 'node_modules', '.bin', 'depcruise'),
      ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
      { cwd: ROOT, reject: false },
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no dependency violations found \(\d{2,} modules/);
  }, 60_000);

  it('no source file (src/, web/) is over 300 lines, no class over 200', () => {
    const long: string[] = [];
    for (const f of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'web'))]) {
      const lines = readFileSync(f, 'utf8').split('\n');
      if (lines.length > 300) long.push(`${relative(ROOT, f)}: ${lines.length} lines`);
      lines.forEach((l, i) => {
        if (!/^(export )?(abstract )?class /.test(l)) return;
        const end = lines.findIndex((x, j) => j > i && x === '}');
        if (end - i > 200) long.push(`${relative(ROOT, f)}:${i + 1}: a class of ${end - i} lines`);
      });
    }
    expect(long).toEqual([]);
  });
});
