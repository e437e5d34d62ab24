/** An agent CLI's transcript (JSONL), read for token usage (core/tokens.ts says what a turn is). */
import { readFile } from 'node:fs/promises';

/** Every line that parses; a line being written (cut short) or not JSON is skipped. Empty when unreadable. */
export async function readTranscript(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      /* a partial last line */
    }
  }
  return out;
}
