/**
 * `baton export --html` and the dashboard's download: one self-contained page, readable offline — its CSS
 * inline, no script, no image, no font, no link outside the page (reply_to links are anchors in it). Every
 * agent string is escaped: a message is text, never markup.
 */
import { sanitize } from '../../core/compose.js';
import { when } from '../transcript.js';
import { factsOf, headFacts, route } from './facts.js';
import type { ExportDoc } from './gather.js';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]!);
/** A record's text as the pane got it (sanitized), escaped. */
const text = (s: string) => esc(sanitize(s).trimEnd());

const CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #666; --line: #ddd; --box: #f5f5f7; --accent: #2a62c9; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ea; --bg: #17171a; --muted: #9a9aa0; --line: #333; --box: #222226; --accent: #7aa7ff; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; margin-bottom: .25rem; }
ul.head { color: var(--muted); list-style: none; padding: 0; margin: 0 0 1.5rem; }
article { border-top: 1px solid var(--line); padding: .75rem 0; }
article h3 { font-size: 1rem; margin: 0; }
article h3 a, .facts a { color: var(--accent); text-decoration: none; }
.facts { color: var(--muted); font-size: .85rem; margin: .15rem 0 .5rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--box); padding: .6rem .8rem; border-radius: 6px; margin: .25rem 0; font: 13px/1.45 ui-monospace, monospace; }
details { margin: .25rem 0; } summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
.person { border-left: 3px solid var(--accent); padding-left: .75rem; }
.outcome { border: 2px solid var(--accent); border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1.5rem; }
`;

export function exportHtml(d: ExportDoc): string {
  const out = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>baton conversation — ${esc(d.where)}</title>`,
    `<style>${CSS}</style></head><body>`,
    '<h1>baton conversation</h1>',
    `<ul class="head">${headFacts(d)
      .map((f) => `<li>${esc(f)}</li>`)
      .join('')}</ul>`,
  ];
  if (d.outcome)
    out.push(
      `<section class="outcome"><h2>Outcome</h2><p class="facts">${esc(route(d.outcome))} · ` +
        `<a href="#${d.outcome.id}">${d.outcome.id}</a></p><pre>${text(d.outcome.content)}</pre></section>`,
    );
  out.push('<h2>Messages</h2>');
  for (const r of d.records) {
    const link = (f: string) =>
      r.reply_to && f === `reply to ${r.reply_to}` ? `reply to <a href="#${r.reply_to}">${r.reply_to}</a>` : esc(f);
    const facts = factsOf(r).map(link).join(' · ');
    const catchUp = d.catch_ups[r.id];
    out.push(
      `<article id="${esc(r.id)}"${r.sender === 'user' ? ' class="person"' : ''}>`,
      `<h3><a href="#${esc(r.id)}">${esc(r.id)}</a> ${esc(route(r))}${r.subject ? ` — ${esc(r.subject)}` : ''}</h3>`,
      `<p class="facts">${facts}</p>`,
      catchUp
        ? `<details class="catch-up"><summary>What ${esc(r.receiver)} was given first (its catch-up)</summary><pre>${text(catchUp)}</pre></details>`
        : '',
      `<pre class="content">${text(r.content)}</pre>`,
      '</article>',
    );
  }
  if (d.answers.length) {
    out.push("<h2>A person's answers to dialogs</h2><ul>");
    for (const a of d.answers)
      out.push(`<li>${esc(when(a.ts))} · ${esc(a.agent)}: “${esc(a.choice)}”${a.by ? ` (by ${esc(a.by)})` : ''}</li>`);
    out.push('</ul>');
  }
  out.push('</body></html>', '');
  return out.join('\n');
}
