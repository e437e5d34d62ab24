/** `baton status` as text: one line per fact, each from a small function; `--json` prints the StatusReport itself. */
import { dollars } from '../../core/budget.js';
import type { AgentStatus, StatusReport } from './report.js';
import { runningConfigLine } from './running.js';

const ago = (iso: string | null) => {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};

/** A screen in a few words: `ready`, `ready, busy`, `holding text`, `dialog (…)`, `not recognised`. */
function screenWords(x: NonNullable<AgentStatus['screen']>): string {
  const busy = x.busy ? ', busy' : '';
  if (x.state === 'ready') return `ready${busy}`;
  if (x.state === 'holding') return `holding text${busy}`;
  return x.state === 'dialog' ? `dialog (${x.detail ?? ''})` : 'not recognised';
}

function configLine(s: StatusReport): string {
  if (s.config) return s.config;
  const agents = Object.keys(s.agents).join(', ');
  return `none found — showing the built-in default (${agents}); "baton init" writes a config.json`;
}

function conversationLine(s: StatusReport): string {
  const demo = s.demo ? ' — a demo' : '';
  if (s.finished) {
    const note = s.finished.note ? `: ${s.finished.note}` : '';
    return `finished (${s.finished.reason}${note}, ${s.finished.at}); "baton resume" continues it${demo}`;
  }
  if (s.paused?.reason === 'budget') {
    const spent = s.paused.spent_usd !== undefined ? `${dollars(s.paused.spent_usd)} of ` : '';
    const max = s.paused.max_usd !== undefined ? dollars(s.paused.max_usd) : '';
    return (
      `paused since ${s.paused.at}: its budget ${s.paused.budget ?? ''} is spent (${spent}${max}); ` +
      `"baton resume" goes on one more turn, "baton resume --budget USD" raises it${demo}`
    );
  }
  if (s.paused) {
    const by =
      s.paused.reason === 'loop'
        ? ` by the loop guard (${(s.paused.evidence ?? []).join(', ')} added nothing)`
        : s.paused.reason
          ? ` (${s.paused.reason})`
          : '';
    return `paused${by} since ${s.paused.at}; "baton resume" continues it${demo}`;
  }
  if (s.stalled) return `stalled: ${s.current_turn} stayed silent after ${s.nudges} reminders${demo}`;
  if (s.skipped && !s.daemon.running) return `not served: the machine's daemon skipped it${demo}`;
  const blocked = s.blocked ? ` — blocked: ${s.blocked.agent} waits for a person (the turn clock stands still)` : '';
  return `${s.daemon.running ? 'running' : 'not running (no daemon: "baton up" starts it)'}${blocked}${demo}`;
}

/** The machine's daemon skipped it: why, and what makes it try again. */
export function skippedLine(skipped: { pid: number; problem: string } | null): string[] {
  return skipped
    ? [`skipped       by the machine's daemon (pid ${skipped.pid}): ${skipped.problem}; "baton up" here tries again`]
    : [];
}

/** Who waits at a dialog for a person, at what, and how to answer it (docs/protocol.md §12). */
function blockedLines(s: StatusReport): string[] {
  const b = s.blocked;
  if (!b) return [];
  const choices = b.choices?.length
    ? `; choices: ${b.choices.map((c) => `${c.n}. ${c.label}`).join(', ')} — baton answer ${b.agent} N`
    : '';
  return [
    `blocked       ${b.agent} waits for a person since ${b.since} (${ago(b.since)}): ${b.kind} — ${b.question}${choices}`,
  ];
}

function turnLine(s: StatusReport): string {
  // No clock runs for a finished or paused conversation (it once counted on: "claude1 for 5400 s").
  const since = s.finished
    ? ' (finished: no turn runs)'
    : s.paused
      ? ' (paused: its clock stands still)'
      : s.seconds_in_turn !== null
        ? ` for ${s.seconds_in_turn} s`
        : '';
  const nudges = s.nudges && !s.finished ? `, ${s.nudges} reminder(s) sent` : '';
  return `${s.current_turn ?? '(no state yet)'}${since}${nudges}`;
}

/** The policy the daemon runs, and config.json's when it says another: a policy takes a restart. */
function policyLine(s: StatusReport): string {
  if (!s.policy_in_file) return s.policy;
  const file = `config.json says ${s.policy_in_file}, which the daemon does not take while it runs`;
  return `${s.policy} (the daemon runs it; ${file}: baton down, baton up)`;
}

function tokenLines(s: StatusReport): string[] {
  if (!s.tokens.total && !s.tokens.max) return [];
  const max = s.tokens.max ? ` of max ${s.tokens.max}` : '';
  const by = Object.entries(s.tokens.by_agent).map(([a, n]) => `${a} ${n}`);
  return [`tokens        ${s.tokens.total}${max} (${by.join(', ') || 'none counted yet'})`];
}

/** What the turns cost, of the budgets, per agent, and the models with no price (never a silent gap). */
function costLines(s: StatusReport): string[] {
  const c = s.cost;
  if (!c.usd && !c.max_usd && !Object.keys(c.agents_max).length && !c.unpriced.length) return [];
  const max = c.max_usd ? ` of max ${dollars(c.max_usd)}` : '';
  const each = ([a, n]: [string, number]) =>
    `${a} ${dollars(n)}${c.agents_max[a] ? ` of max ${dollars(c.agents_max[a])}` : ''}`;
  const by = Object.entries(c.by_agent).map(each).join(', ') || 'none counted yet';
  const unpriced = c.unpriced.length
    ? `; ${c.unpriced.map((m) => `no price for model ${m}`).join(', ')} (its tokens are counted; "pricing" in config.json gives one)`
    : '';
  return [`cost          ${dollars(c.usd)}${max} (${by})${unpriced}`];
}

/** Messages, against max_turns counted from the last resume (else "5 of max 3" after one); finished: no reply due. */
function messagesLine(s: StatusReport): string {
  const last = `last ${s.last_message_id ?? '-'}`;
  const awaiting = s.finished ? '' : `, awaiting a reply to ${s.pending_reply_to ?? '-'}`;
  if (!s.max_turns) return `${s.message_counter} (${last}${awaiting})`;
  if (!s.turns_base) return `${s.message_counter} of max ${s.max_turns} (${last}${awaiting})`;
  const since = s.message_counter - s.turns_base;
  return `${s.message_counter} (resumed at ${s.turns_base}: ${since} of max ${s.max_turns} since; ${last}${awaiting})`;
}

function waitingLine(s: StatusReport): string {
  const each = Object.entries(s.held).map(([d, n]) => `${d}: ${n}${s.waiting[d] ? ` (${s.waiting[d].text})` : ''}`);
  return each.join(', ') || '-';
}

function hostLines(s: StatusReport): string[] {
  if (s.bus.kind !== 'postgres') return [];
  return [
    'hosts',
    ...Object.entries(s.hosts).map(([h, x]) => {
      const since = x.since ? ` since ${x.since} (${ago(x.since)})` : '';
      const beat = x.alive && x.last_heartbeat ? `, heartbeat ${ago(x.last_heartbeat)}` : '';
      const alive = x.alive ? `alive (pid ${x.pid})` : 'no daemon';
      return `  ${h.padEnd(12)} ${alive}${since}${beat}  agents: ${x.agents.join(', ') || '-'}`;
    }),
  ];
}

/** Each notify sink: where it sends, its last success and its last failure (only a failure since the success). */
function notifyLines(s: StatusReport): string[] {
  return s.notify.map((n, i) => {
    const ok = n.last_success ? `last sent ${ago(n.last_success.at)} (${n.last_success.event})` : 'nothing sent yet';
    const f = n.last_failure;
    const failed = f ? `; last failed ${ago(f.at)} (${f.event}: ${f.error})` : '';
    const dropped = n.dropped ? `; ${n.dropped} dropped (it was behind)` : '';
    return `${i ? '             ' : 'notify       '} ${n.label} → ${n.target}: ${ok}${failed}${dropped}`;
  });
}

function agentLine(n: string, a: AgentStatus): string {
  const life =
    a.problem?.startsWith('runs on ') && !a.pane ? a.problem : a.alive ? 'alive' : a.dead ? 'dead ' : 'missing';
  const kind = a.demo ? `demo agent (for ${a.kind})` : a.kind;
  const pane = a.pane ? ` (${a.pane}, ${a.command}, active ${ago(a.last_activity)})` : '';
  const screen = a.screen ? `  screen: ${screenWords(a.screen)}` : '';
  const h = a.hooks;
  const state = h?.state === 'permission' ? 'waiting for a permission' : h?.state;
  const hooks = h ? `  hooks: ${state} since ${ago(h.since)}${h.detail ? ` (${h.detail})` : ''}` : '';
  const dialog = a.dialog ? `  dialog: ${a.dialog.kind} (${a.dialog.question})` : '';
  const problem = a.problem && a.pane ? `  ! ${a.problem}` : '';
  const missed = a.catch_up ? `  catch-up: ${a.catch_up} message${a.catch_up === 1 ? '' : 's'}` : '';
  return `  ${n.padEnd(12)} ${life}  ${kind}  ${a.target}${pane}${screen}${hooks}${dialog}${missed}${problem}`;
}

export function formatStatus(s: StatusReport): string {
  const lines = [
    `config        ${configLine(s)}`,
    ...[runningConfigLine(s.running_config)].filter((l) => l !== null).map((l) => `              ! ${l}`),
    `message_dir   ${s.message_dir}`,
    `daemon        ${s.daemon.running ? `running (pid ${s.daemon.pid ?? 'unknown'})` : 'not running'}`,
    ...skippedLine(s.skipped),
    ...(s.registry_problem
      ? [
          `registry      ${s.registry_problem}; the machine's daemon serves what it served, and "baton up" and ` +
            '"baton down" refuse until it is fixed by hand',
        ]
      : []),
    `policy        ${policyLine(s)}`,
    `conversation  ${conversationLine(s)}`,
    ...blockedLines(s),
    `turn          ${turnLine(s)}`,
    ...tokenLines(s),
    ...costLines(s),
    `messages      ${messagesLine(s)}`,
    `waiting       ${waitingLine(s)}`,
    ...(s.pending.length ? [`pending       ${s.pending.join(', ')} (baton approve / baton reject)`] : []),
    ...Object.entries(s.notes).map(([id, who]) => `note          ${id} to all: not yet typed into ${who.join(', ')}`),
    `rejected      ${s.rejected}`,
    ...(s.bus.kind === 'postgres'
      ? [`relaying      ${s.relaying} (claimed from this machine's folders, not yet stored)`]
      : []),
    ...hostLines(s),
    ...notifyLines(s),
    'agents',
    ...Object.entries(s.agents).map(([n, a]) => agentLine(n, a)),
  ];
  return `${lines.join('\n')}\n`;
}
