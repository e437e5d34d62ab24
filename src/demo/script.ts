/**
 * What the bundled demo agents say (`baton up --demo`): one short, coherent conversation — a release
 * checklist gone through one item per message — that ends through baton's own termination (max_turns =
 * DEMO_TURNS for a demo conversation), so status, log and the dashboard show it finished and why.
 * The script before it looped (msg_0009 repeated msg_0001), stopped mid-topic while status still said
 * running, and in a three-agent demo greeted the sender instead of the agent it was writing to.
 *
 * Pure: line n is what the agent holding the turn writes as message n + 1, addressed to the next speaker.
 */

/** How the first line opens; a kick-off topic takes its place (demoTopicLine). */
const OPENING = 'Let us go through the release checklist together, one item per message. ';

const LINES: readonly string[] = [
  `${OPENING}Item 1: the changelog. I drafted it; could you check the wording?`,
  'Read the changelog: two typos fixed, and the breaking change now comes first. ' +
    'Item 2: the migration guide still mentions the old --legacy flag.',
  'Replaced --legacy with --compat in the guide and added an example:\n  baton up --compat\n' +
    'It runs cleanly here. Item 3: the release notes need a line about the new dashboard.',
  'Added: "baton ui shows the conversation live in a browser" ✓ (動作確認済み). Item 4: was the last CI run on main green?',
  'Yes: green on main, 0 failures. Item 5: who tags the release?',
  'I will tag v1.0 once this checklist is done. Item 6: anything still open in the tracker for this milestone?',
  'Nothing open for the milestone. That covers every item on the list: the release is ready to tag.',
  'Agreed: checklist complete, tagging v1.0 now. Thanks for the help; that is the end of our demo conversation.',
];

/**
 * Message number `n + 1` (0-based `n`), written by `me` to `to`. An agent's first message (the first time
 * round the agents) introduces itself to the agent it writes to.
 */
export function demoLine(n: number, me: string, to: string, agents: number): string | null {
  const line = LINES[n];
  if (line === undefined) return null;
  return n < agents ? `Hi ${to}, ${me} here. ${line}` : `${to}: ${line}`;
}

/** The line that answers a kick-off topic: the first speaker takes the person's topic as the subject. */
export function demoTopicLine(topic: string, me: string, to: string): string {
  const short = topic.replace(/\s+/g, ' ').trim();
  const asked = short.length > 120 ? `${short.slice(0, 117)}…` : short;
  return (
    `Hi ${to}, ${me} here. A person asked us: "${asked}". ` +
    'I am only a demo agent, so let us treat it as our release checklist, one item per message. ' +
    LINES[0]!.slice(OPENING.length)
  );
}
