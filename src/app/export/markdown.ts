/** `baton export --md` and `--jsonl`: pure renderings of an ExportDoc (gather.ts). */
import { linesOf } from '../../core/lines.js';
import { when } from '../transcript.js';
import { factsOf, headFacts, route } from './facts.js';
import type { ExportDoc } from './gather.js';

/** A fence longer than any run of backticks in `text`, so the block cannot be closed from inside. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${linesOf(text.trimEnd()).join('\n')}\n${fence}`;
}

export function exportMarkdown(d: ExportDoc): string {
  const out = ['# baton conversation', '', ...headFacts(d).map((f) => `- ${f}`), ''];
  if (d.outcome)
    out.push('## Outcome', '', `${route(d.outcome)} · ${d.outcome.id}`, '', d.outcome.content.trimEnd(), '');
  out.push('## Messages', '');
  for (const r of d.records) {
    out.push(`### ${r.id}${r.subject ? ` — ${r.subject.replace(/\s+/g, ' ')}` : ''}`, '');
    out.push(`**${route(r)}** · ${factsOf(r).join(' · ')}`, '');
    const catchUp = d.catch_ups[r.id];
    if (catchUp) out.push(`What ${r.receiver} was given first (its catch-up):`, '', fenced(catchUp), '');
    out.push(fenced(r.content), '');
  }
  if (d.answers.length) {
    out.push("## A person's answers to dialogs", '');
    for (const a of d.answers) out.push(`- ${when(a.ts)} · ${a.agent}: "${a.choice}"${a.by ? ` (by ${a.by})` : ''}`);
    out.push('');
  }
  return `${out.join('\n')}`;
}

/** One JSON object per line: the conversation, then each record (its catch-up with it), each answer. */
export function exportJsonl(d: ExportDoc): string {
  const lines: unknown[] = [
    {
      kind: 'conversation',
      where: d.where,
      policy: d.policy,
      agents: d.agents,
      exported_at: d.exported_at,
      state: d.state,
      outcome: d.outcome?.id ?? null,
    },
    ...d.records.map((r) => ({ kind: 'record', ...r, ...(d.catch_ups[r.id] ? { catch_up: d.catch_ups[r.id] } : {}) })),
    ...d.answers.map((a) => ({ kind: 'answer', ...a })),
  ];
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}
