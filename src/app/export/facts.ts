/** What each export says of a record and the conversation, in words: one place, so the formats never disagree. */
import type { ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import { when } from '../transcript.js';
import type { ExportDoc } from './gather.js';

/** "user → all" for a note to every agent, else sender → receiver. */
export const route = (r: ArchiveRecord): string =>
  r.receiver === 'all' ? `${r.sender} → every agent (a note)` : `${r.sender} → ${r.receiver}`;

/** The cost a record carries, whoever wrote it there (`cost_usd` on the record or its turn's tokens). */
function costOf(r: ArchiveRecord): number | null {
  const top = (r as { cost_usd?: unknown }).cost_usd;
  const inner = (r.turn_tokens as { cost_usd?: unknown } | undefined)?.cost_usd;
  const v = typeof top === 'number' ? top : typeof inner === 'number' ? inner : null;
  return v !== null && Number.isFinite(v) ? v : null;
}

/** The record's facts, one short phrase each: times, receipt, tokens, cost, flags. */
export function factsOf(r: ArchiveRecord): string[] {
  const out = [`written ${when(r.received_at)}`, `typed ${when(r.delivered_at)}`];
  if (r.reply_to) out.push(`reply to ${r.reply_to}`);
  if (r.type !== 'message') out.push(`type ${r.type}`);
  if (r.received) out.push(`received by its model ${when(r.received.at)}${r.received.intact ? '' : ' (altered)'}`);
  else if (r.deliveries)
    for (const [agent, d] of Object.entries(r.deliveries))
      out.push(`${agent}: ${d.at ? `typed ${when(d.at)}` : 'not confirmed'}${d.received ? ', received' : ''}`);
  if (r.turn_tokens) {
    const t = r.turn_tokens;
    out.push(`its turn: ${t.input} in, ${t.output} out, ${t.cache_read + t.cache_creation} cache tokens`);
  }
  const cost = costOf(r);
  if (cost !== null) out.push(`$${cost.toFixed(4)}`);
  if (r.redelivered) out.push('redelivered');
  if (r.auto) out.push("posted from the agent's final reply");
  if (r.kickoff) out.push('a topic');
  return out;
}

/** The conversation's state in a line: running, paused (and why), finished (and why). */
function stateLine(s: State | null): string {
  if (!s) return 'not started';
  if (s.finished)
    return `finished (${s.finished.reason}${s.finished.note ? `: ${s.finished.note}` : ''}, ${when(s.finished.at)})`;
  if (s.paused)
    return `paused${s.paused.reason ? ` (${s.paused.reason}${s.paused.evidence ? `: ${s.paused.evidence.join(', ')}` : ''})` : ''} since ${when(s.paused.at)}`;
  return `${s.current_turn} has the turn`;
}

/** The head of the document: where, who, how many, in what state, when exported. */
export function headFacts(d: ExportDoc): string[] {
  const msgs = d.records.filter((r) => r.id.startsWith('msg_')).length;
  const person = d.records.length - msgs;
  const tokens = d.state?.tokens?.total;
  return [
    d.where,
    `policy ${d.policy} · ${d.agents.join(', ')}`,
    `${msgs} agent messages, ${person} from a person · ${stateLine(d.state)}`,
    ...(tokens ? [`${tokens} tokens in all`] : []),
    `exported ${when(d.exported_at)}`,
  ];
}
