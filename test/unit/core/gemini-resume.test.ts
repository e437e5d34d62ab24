/**
 * core/gemini-resume.ts: before a resume, a Gemini CLI chat file gets one `$set.messages` line that leaves
 * out the tool results it holds twice (a `user` message of functionResponse parts beside the `gemini`
 * message whose toolCalls hold the same results), so the resumed history has one response per call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiResumeRepair } from '../../../src/core/gemini-resume.js';

const chat = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'tokens', 'gemini-chat.jsonl'), 'utf8');
const isResponse = (m: { type: string; content: unknown }) =>
  m.type === 'user' && Array.isArray(m.content) && m.content.every((p) => 'functionResponse' in p);

describe('a Gemini chat file repaired before a resume', () => {
  it('leaves out each tool result the gemini message before it holds, and keeps everything else in order', () => {
    const line = geminiResumeRepair(chat);
    expect(line).not.toBeNull();
    const messages = (
      JSON.parse(line!) as { $set: { messages: Array<{ id: string; type: string; content: unknown }> } }
    ).$set.messages;
    // The live file (a real 0.61.0 session, two `baton post` turns) has two such messages: both left out.
    expect(messages.filter(isResponse)).toEqual([]);
    // Every other message is kept, in order: the session context, the prompts, the replies.
    const entries = chat
      .split('\n')
      .filter(Boolean)
      .map(
        (l) =>
          JSON.parse(l) as {
            id?: string;
            type?: string;
            content?: unknown;
            $set?: { messages?: Array<{ id: string }> };
          },
      );
    const context = entries[1]!.$set!.messages!.map((m) => m.id);
    const rest = entries.filter((e) => e.id && !isResponse(e as { type: string; content: unknown })).map((e) => e.id!);
    expect(messages.map((m) => m.id)).toEqual([...context, ...new Set(rest)]);
    // Repaired once, there is nothing more to do: a second resume does not pile up lines.
    expect(geminiResumeRepair(`${chat}${line}\n`)).toBeNull();
  });

  it('keeps a result whose call the gemini message holds without it, and a file with no tool call alone', () => {
    const lines = [
      { sessionId: 's', kind: 'main' },
      { id: 'u1', type: 'user', content: [{ text: 'hi' }] },
      { id: 'g1', type: 'gemini', content: '', toolCalls: [{ id: 'c1', name: 'run_shell_command', args: {} }] },
      {
        id: 'u2',
        type: 'user',
        content: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: {} } }],
      },
      { id: 'g2', type: 'gemini', content: 'done' },
    ];
    expect(geminiResumeRepair(lines.map((l) => JSON.stringify(l)).join('\n'))).toBeNull();
    expect(geminiResumeRepair('{"sessionId":"s"}\n{"id":"u","type":"user","content":[{"text":"x"}]}\n')).toBeNull();
  });
});
