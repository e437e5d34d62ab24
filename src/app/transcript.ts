/** The conversation as a transcript: every archived record in the order it reached a pane, as text or Markdown. */
import type { Archive } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import { sanitize } from '../core/compose.js';
import { linesOf } from '../core/lines.js';
import { byDelivery, type ArchiveRecord } from '../core/record.js';

/** Every archived record (agent messages and a person's), in the order they reached the panes. */
export async function transcript(bus: Archive): Promise<ArchiveRecord[]> {
  return (await bus.records()).sort(byDelivery);
}

/** A time as the transcript and the exports show it. */
export const when = (iso: string | null | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : 'not typed yet';

/**
 * One record for a terminal (`baton log`) or an agent's model (the MCP `transcript` tool): its content as a
 * pane got it (sanitized: an escape sequence in it would act on the person's terminal, a CR or a C1 NEL
 * would start a line there) and indented line by line, so no line of it can pass for a record's own line.
 */
export function formatText(r: ArchiveRecord): string {
  const head = [r.id, `${r.sender} → ${r.receiver}`, when(r.delivered_at)];
  if (r.reply_to) head.push(`reply to ${r.reply_to}`);
  if (r.type !== 'message') head.push(`[${r.type}]`);
  if (r.subject) head.push(`— ${sanitize(r.subject).replace(/\n/g, ' ')}`);
  if (r.redelivered) head.push('(redelivered)');
  const body = linesOf(sanitize(r.content)).map((l) => `    ${l}`);
  return `${head.join('  ')}\n${body.join('\n')}\n`;
}

export function formatMarkdown(records: ArchiveRecord[], config: Config): string {
  const out = [
    `# baton conversation`,
    '',
    `${records.length} messages · policy ${config.turns.policy} · ${config.order.join(', ')} · ` +
      `exported ${new Date().toISOString()}`,
    '',
  ];
  for (const r of records) {
    const meta = [`**${r.sender}** → ${r.receiver}`, when(r.delivered_at)];
    if (r.reply_to) meta.push(`reply to [${r.reply_to}](#${r.reply_to})`);
    if (r.type !== 'message') meta.push(r.type);
    if (r.redelivered) meta.push('redelivered');
    out.push(
      `### ${r.id}${r.subject ? ` — ${sanitize(r.subject).replace(/\n/g, ' ')}` : ''}`,
      '',
      meta.join(' · '),
      '',
      r.content.trimEnd(),
      '',
    );
  }
  return `${out.join('\n')}`;
}
