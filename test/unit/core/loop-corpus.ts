/**
 * The conversations the loop guard's numbers were chosen on (docs/protocol.md §12): the demo's script (read
 * from the demo itself), the real-client end-to-end conversations (their scripted contents, as test/e2e
 * posts them — what their archives hold), the integration tests' numbered messages, and loops written the
 * way agents write them (thank-you ping-pong, a status said again in other words, an exact repeat).
 */
import { DEMO_TURNS } from '../../../src/core/conversation.js';
import { demoLine, demoTopicLine } from '../../../src/demo/script.js';

const demo = (names: string[]): string[] =>
  Array.from({ length: DEMO_TURNS }, (_, n) => {
    const me = names[n % names.length]!;
    return demoLine(n, me, names[(n + 1) % names.length]!, names.length)!;
  });

const topicDemo = (): string[] => {
  const d = demo(['demo1', 'demo2']);
  return [demoTopicLine('Review the release plan and tell me what is missing', 'demo1', 'demo2'), ...d.slice(1)];
};

const BIG = 'x'.repeat(64);
const CONTROL = 'control bytes: ETX SUB NUL fake paste end CR CRLF';

/** Conversations that make progress: the guard must never trip on them. */
export const PROGRESS: Record<string, string[]> = {
  'demo, two agents': demo(['demo1', 'demo2']),
  'demo, three agents': demo(['demo1', 'demo2', 'demo3']),
  'demo with a topic': topicDemo(),
  // test/e2e/claude.test.ts: Claude Code ↔ Claude Code, 12 turns (the mock model's fallbacks after it).
  'e2e claude ↔ claude': [
    'Hello claude2! claude1 here, opening the conversation.',
    `reply to msg_0001: it's "quoted", has $HOME and \`backticks\`, a \\ backslash, ünïcödé and 🎉, all literal`,
    BIG,
    `reply to msg_0004 with ${CONTROL}`,
    '/clear reply to msg_0004: a leading slash command',
    '!ls reply to msg_0005: a leading bang',
    'reply to msg_0006: claude2 is still busy when this arrives',
    'reply to msg_0007: got it after my busy turn',
    `${Array.from({ length: 10 }, (_, i) => `reply to msg_0008, line ${i + 1} of 10`).join('\n')}\n`,
    `reply to msg_0009: one long line, ${'word '.repeat(200).trim()}`,
    'reply to msg_0010: sent by a busy claude1 that a person wrote to meanwhile',
    'reply to msg_0011: that was turn 12, the last one. Goodbye!',
    'The conversation is complete.',
    'Noted, thank you.',
  ],
  // test/e2e/mixed.test.ts: Codex ↔ Gemini.
  'e2e codex ↔ gemini': [
    'Hello gemini1! codex1 here, opening the mixed conversation.',
    '/clear reply to msg_0001: this starts with a slash command and must arrive as plain text',
    BIG,
    ' /quit reply to msg_0003: a leading space, then /quit, which Gemini runs even so',
    '!touch PWNED\nreply to msg_0004: the line above starts with "!", which Codex runs locally',
    'reply to msg_0005: this one ends with a backslash \\',
    `reply to msg_0006 with ${CONTROL}`,
    'reply to msg_0007: codex1 is still busy when this arrives',
    'reply to msg_0008: got it as a turn of my own\r\nwith a CRLF line break; gemini1 is busy now\r\n',
    'reply to msg_0009: that was turn 10, the last one. Goodbye!',
    'The conversation is complete.',
    'Noted, thank you.',
  ],
  // test/e2e/mixed.test.ts: Claude Code → Codex → Gemini round robin.
  'e2e claude → codex → gemini': [
    'Hello codex1 and gemini1! claude1 opens the round.',
    '/clear reply to msg_0001 from codex1: a leading slash command',
    ' /quit is where gemini1 starts its final answer, and it must reach claude1 as text',
    BIG,
    '!touch PWNED\nreply to msg_0004: a leading "!", and a trailing backslash \\',
    `gemini1's plain answer: ünïcödé, 🎉, "quotes", $HOME and \`ticks\`, a tab\there, ending in a backslash \\`,
    `reply to msg_0006 with ${CONTROL}`,
    'reply to msg_0007: written after my busy turn\r\nwith CRLF\r\n',
    'reply to msg_0008: the last turn, 9 of 9. Goodbye!',
    'Noted, thank you.',
    'The conversation is complete.',
  ],
  // The integration tests and bench/: numbered messages, alike but for their numbers.
  'numbered test messages': Array.from({ length: 12 }, (_, i) => `message ${i + 1} from ${i % 2 ? 'b' : 'a'}`),
  // test/fixtures/recorder.mjs --reply: what the integration tests' agents answer.
  'recorder replies': Array.from({ length: 12 }, (_, i) => `reply to msg_${String(i + 1).padStart(4, '0')}`),
  'numbered replies': Array.from({ length: 12 }, (_, i) => `reply ${i + 1}: ok, next step ${i + 2}`),
  // A review that ends politely: two acknowledgements in a row, then new work.
  'a review with thanks in between': [
    'I pushed the retry fix to branch fix/retry. Could you review the backoff constants?',
    'Reviewed: the backoff should cap at 30 s, not 300 s; otherwise looks right.',
    'Thanks, good catch. Capped at 30 s and added a test for the cap.',
    'Great, thanks! Looks good to me now.',
    'Next: the flaky test in watcher.test.ts. It waits with a fixed sleep; I will switch it to waitFor.',
    'Agreed. While you are there, the timeout in that file is 2 s, which is too short on CI.',
    'Raised it to 10 s and replaced both sleeps. CI is green on three runs.',
    'Perfect, thank you. That closes our list.',
  ],
};

/** Conversations going in circles: the guard must pause each within its window. */
export const LOOPS: Record<string, string[]> = {
  'thank-you ping-pong': [
    'Thanks for the thorough review! I have merged the fix.',
    "You're welcome! Glad the fix worked out. Let me know if anything else comes up.",
    'Thank you, will do! It was great working through this with you.',
    'Likewise! Great collaboration. Have a good one.',
    'Thanks, you too! Talk soon.',
    'Cheers! Take care.',
    'Thank you! Bye for now.',
    'Goodbye, and thanks again!',
  ],
  'the same status in other words': [
    'The tests pass on my side; I am waiting for your review of the parser change before I merge.',
    'I reviewed it earlier; the parser change looks fine to me. Please go ahead and merge when the tests pass.',
    'The tests pass on my side; I am still waiting for your review of the parser change before I merge.',
    'I reviewed it already; the parser change looks fine to me. Please go ahead and merge once the tests pass.',
    'The tests pass on my side, and I am waiting for your review of the parser change before I merge it.',
    'As I said, I reviewed it; the parser change looks fine to me. Please go ahead and merge when the tests pass.',
    'The tests pass on my side; I am waiting for your review of the parser change before I merge.',
    'I reviewed it earlier; the parser change looks fine to me. Please go ahead and merge when the tests pass.',
  ],
  'the same message again': Array.from({ length: 8 }, (_, i) =>
    i % 2 ? 'Done. Anything else I should change in the config loader?' : 'Please re-run the config loader tests.',
  ),
  'acknowledging repeats': [
    'Sounds good, I will wait for your go-ahead before deploying.',
    'Go ahead and deploy when you are ready.',
    'Sounds good, I will wait for your go-ahead before deploying.',
    'Go ahead and deploy whenever you are ready.',
    'Sounds good, I will wait for your go-ahead before deploying it.',
    'Go ahead and deploy when you are ready.',
    'Sounds good, I will wait for the go-ahead before deploying.',
    'Go ahead and deploy when you are ready.',
  ],
};
