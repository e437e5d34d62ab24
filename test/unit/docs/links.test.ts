/**
 * Every relative link in README.md and docs/*.md reaches a file of the repository, and every #anchor a
 * heading of that file (as GitHub makes anchors of headings). Docs once pointed at files and anchors that
 * were not there (CODEX-GEMINI.md, README.md#agent-kinds).
 */
import { OUTCOME_FILE } from '../../../src/core/outcome.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/terminal/kinds.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown without its fenced and inline code, where a "[x](y)" is not a link. */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, text] of md.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = text!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  // Explicit anchors (<a id="…">, <a name="…">).
  for (const [, id] of md.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(id!);
  return out;
}

/** Every relative link of a markdown file: [text](target) and [label]: target. */
function linksOf(md: string): string[] {
  const text = prose(md);
  const inline = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  const defined = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!);
  return [...inline, ...defined].filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

describe('links in the docs', () => {
  it.each(DOCS.map((d) => [d]))('every relative link and anchor in %s resolves', (doc) => {
    const md = readFileSync(join(ROOT, doc), 'utf8');
    const broken: string[] = [];
    for (const link of linksOf(md)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? resolve(dirname(join(ROOT, doc)), decodeURI(path)) : join(ROOT, doc);
      if (!existsSync(target) || relative(ROOT, target).startsWith('..')) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor === undefined || statSync(target).isDirectory()) continue;
      if (!target.endsWith('.md')) {
        // A line anchor (#L10) into a source file: the line must be there.
        const line = /^L(\d+)$/.exec(anchor);
        if (!line || Number(line[1]) > readFileSync(target, 'utf8').split('\n').length)
          broken.push(`${link}: no such line`);
        continue;
      }
      if (!anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor)))
        broken.push(`${link}: no heading for #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  // A document named in the text is one a reader can open: in the repository, or one baton writes (an
  // agent's instructions file, config.json's neighbours). "SPEC" is not in the repository: docs/protocol.md is.
  it.each(DOCS.map((d) => [d]))('every document %s names is in the repository', (doc) => {
    const md = readFileSync(join(ROOT, doc), 'utf8');
    // …and the closing agent's OUTCOME.md, and the dashboard's export.md download.
    const written = new Set([...Object.values(KINDS).map((k) => k.instructions), OUTCOME_FILE, 'export.md']);
    const named = [...md.matchAll(/(?<![\w/.-])([\w./-]+\.md)\b/g)].map((m) => m[1]!);
    const missing = named.filter(
      (f) =>
        !written.has(basename(f)) &&
        !existsSync(resolve(dirname(join(ROOT, doc)), f)) &&
        !existsSync(join(ROOT, f)) &&
        !existsSync(join(ROOT, 'docs', f)),
    );
    expect([...new Set(missing)]).toEqual([]);
    expect(md.match(/\bSPEC\b.{0,20}/g) ?? []).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect([...anchorsOf('# How baton works\n## The Bus\n## `baton post` — and §5!\n## The Bus\n')]).toEqual([
      'how-baton-works',
      'the-bus',
      'baton-post--and-5',
      'the-bus-1',
    ]);
  });
});
