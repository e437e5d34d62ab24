/**
 * The closing turn (docs/protocol.md §12, `turns.closing`): what the closing agent is asked when a conversation
 * finishes, and OUTCOME.md from its answer. The shape is fixed — decided, open, next steps — so a person reading
 * many outcomes finds the same three parts in each.
 */
import { sanitize } from './compose.js';

export const OUTCOME_FILE = 'OUTCOME.md';

export const OUTCOME_SHAPE = '## Decided\n- …\n\n## Open\n- …\n\n## Next steps\n- …';

/** What is typed into the closing agent's pane once the conversation has finished. */
export function closingPrompt(a: { agent: string; prompt?: string | undefined; to: string | null }): string {
  const ask = a.prompt
    ? sanitize(a.prompt).trim()
    : 'Write the outcome of this conversation for the person who started it.';
  const post = a.to
    ? `baton post --type outcome "<the outcome>"`
    : `baton post --type outcome --to AGENT "<the outcome>"`;
  return (
    `[baton] ${a.agent}, one more turn for you: the closing one. ${ask}\n` +
    `Use exactly these three headings, each with short bullet points (write "- none" when a part is empty):\n` +
    `${OUTCOME_SHAPE}\n` +
    `[baton] post it once with: ${post} — it is archived as the outcome and written to ${OUTCOME_FILE}; ` +
    'nothing else will be delivered.'
  );
}

/** OUTCOME.md: the closing agent's answer as it wrote it, and where it comes from. */
export function outcomeFile(
  r: { id: string; sender: string; content: string; delivered_at: string | null },
  finished: string,
): string {
  return `# Outcome\n\n${r.content.trim()}\n\n---\n${r.sender}, ${r.id}${r.delivered_at ? `, ${r.delivered_at}` : ''}; the conversation finished: ${finished}\n`;
}
