/**
 * The side of the page: the header's facts (whose turn and for how long, finished, paused, stalled, held
 * and rejected), each agent's card and screen, the last events, and moderated mode's pending list.
 */
import type { AgentStatus, Conversation, PendingItem, RejectedItem, StatusReport as Status } from '../src/ui/api.js';
import { renderDialogs } from './dialogs.js';
import { $, act, getJson, h, openDialog, say, when } from './dom.js';
import { lane } from './transcript.js';

/** What the page knows of the conversation now. */
export const view: { conversation: Conversation | null; status: Status | null } = { conversation: null, status: null };
let pendingKey = '';
let pendingAsked = 0;

/** A new snapshot: forget the cards, the events and the pending list; show `events` (oldest first). */
export function resetPanels(events: readonly Record<string, unknown>[]): void {
  $('agents').replaceChildren();
  $('events').replaceChildren();
  for (const e of events) addEvent(e);
  pendingKey = '';
}

export function applyStatus(s: Status): void {
  view.status = s;
  renderFacts();
  renderAgents();
  renderDialogs(s);
  void renderPending().catch((err: Error) => say(false, err.message));
}

const duration = (s: number) =>
  s < 60
    ? `${s} s`
    : s < 3600
      ? `${Math.floor(s / 60)} min ${s % 60} s`
      : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;

/** A label and its value, kept together: a line break between the two once left "daemon:" alone at a line's end. */
function fact(label: string, value: Node | string, cls = ''): Node[] {
  return [h('div', { class: 'fact' }, h('dt', {}, label), h('dd', { class: cls }, value))];
}

function renderFacts(): void {
  const s = view.status;
  const dl = $('facts');
  if (!s) {
    dl.replaceChildren(...fact('status', 'unknown'));
    return;
  }
  const state = s.finished
    ? `finished: ${s.finished.reason}${s.finished.note ? ` (${s.finished.note})` : ''}`
    : s.paused
      ? s.paused.reason === 'loop'
        ? `paused by the loop guard: ${(s.paused.evidence ?? []).join(', ')} added nothing`
        : s.paused.reason === 'budget'
          ? `paused: its budget ${s.paused.budget ?? ''} is spent`
          : `paused${s.paused.reason ? ` (${s.paused.reason})` : ''}`
      : s.stalled
        ? `stalled (${s.nudges} reminders unanswered)`
        : 'running';
  const held = Object.entries(s.held).filter(([, n]) => n > 0);
  const heldNode = held.length
    ? h(
        'span',
        {},
        ...held.map(([d, n], i) =>
          h(
            'span',
            { class: 'held', title: s.waiting[d]?.text ?? '' },
            `${i ? ', ' : ''}${d}: ${n}${s.waiting[d] ? ` (${s.waiting[d].text})` : ''}`,
          ),
        ),
      )
    : 'none';
  const rejected = h(
    'button',
    { type: 'button', class: 'linkish', id: 'rejected-button', title: 'show why' },
    String(s.rejected),
  );
  rejected.addEventListener('click', () => void showRejected());
  dl.replaceChildren(
    ...fact(
      'daemon',
      s.daemon.running ? `running (pid ${s.daemon.pid})` : 'not running',
      s.daemon.running ? 'ok' : 'bad',
    ),
    // Across machines (docs/protocol.md §10): each machine's daemon, alive or not and since when.
    ...(s.bus.kind === 'postgres'
      ? fact('machines', machines(s.hosts), Object.values(s.hosts).every((x) => x.alive) ? 'ok' : 'bad')
      : []),
    ...fact('policy', s.policy),
    ...fact('turn', h('span', {}, h('strong', {}, s.current_turn ?? '—'), h('span', { id: 'turn-for' }, ''))),
    ...fact('messages', `${s.message_counter}${s.max_turns ? ` / ${s.max_turns}` : ''}`),
    ...fact('conversation', `${state}${s.demo ? ' (a demo)' : ''}`, s.finished || s.stalled || s.paused ? 'bad' : 'ok'),
    // The turn holder waits at a dialog (docs/protocol.md §12): its choices are under "Waiting for a person".
    ...(s.blocked ? fact('blocked', `${s.blocked.agent} waits for a person (${s.blocked.kind})`, 'bad') : []),
    ...(s.nudges ? fact('reminders', String(s.nudges)) : []),
    // Tokens the agents used, from their hooks, against the budget when there is one.
    ...(s.tokens.total || s.tokens.max
      ? fact(
          'tokens',
          `${s.tokens.total}${s.tokens.max ? ` / ${s.tokens.max}` : ''}`,
          s.tokens.max && s.tokens.total >= s.tokens.max ? 'bad' : 'ok',
        )
      : []),
    // What the turns cost (docs/protocol.md §12), per agent, against the budget; models with no price named.
    ...(s.cost.usd || s.cost.max_usd || s.cost.unpriced.length
      ? fact(
          'cost',
          `${usd(s.cost.usd)}${s.cost.max_usd ? ` / ${usd(s.cost.max_usd)}` : ''}` +
            (Object.keys(s.cost.by_agent).length
              ? ` (${Object.entries(s.cost.by_agent)
                  .map(([a, n]) => `${a} ${usd(n)}`)
                  .join(', ')})`
              : '') +
            (s.cost.unpriced.length ? `; no price for model ${s.cost.unpriced.join(', ')}` : ''),
          s.cost.max_usd && s.cost.usd >= s.cost.max_usd ? 'bad' : 'ok',
        )
      : []),
    ...fact('held', heldNode),
    ...(s.pending.length ? fact('pending', String(s.pending.length)) : []),
    ...fact('rejected', rejected),
  );
  tick();
}

/** USD as a person reads it: cents, or two significant digits below a cent. */
const usd = (x: number): string => (x === 0 ? '$0' : x >= 0.01 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`);

function machines(hosts: Status['hosts']): string {
  return Object.entries(hosts)
    .map(([name, x]) => `${name} ${x.alive ? 'alive' : 'no daemon'}${x.since ? ` since ${when(x.since)}` : ''}`)
    .join(', ');
}

export function tick(): void {
  const span = document.getElementById('turn-for');
  const status = view.status;
  if (!span || !status?.turn_started_at || status.finished || status.paused) {
    if (span) span.textContent = '';
    return;
  }
  const s = Math.max(0, Math.round((Date.now() - Date.parse(status.turn_started_at)) / 1000));
  span.textContent = ` for ${duration(s)}`;
}

export function renderAgents(): void {
  const box = $('agents');
  for (const a of view.conversation?.agents ?? []) {
    let card = box.querySelector<HTMLElement>(`[data-agent="${CSS.escape(a.name)}"]`);
    if (!card) {
      card = h(
        'article',
        { class: `agent c${(lane.get(a.name) ?? 0) % 8}` },
        h(
          'h3',
          {},
          h('span', { class: 'name' }, a.name),
          ' ',
          h('small', { class: 'kind' }, a.kind),
          ' ',
          h('span', { class: 'state' }, ''),
        ),
        h('p', { class: 'pane' }, ''),
        h('p', { class: 'problem', hidden: true }, ''),
        h('pre', { class: 'screen', tabindex: '0', 'aria-label': `${a.name}'s screen (read-only)` }, ''),
      );
      card.dataset.agent = a.name;
      box.append(card);
    }
    const st = view.status?.agents[a.name];
    // The bundled demo agent stands in for the configured kind (its card once said "claude", as if it were one).
    card.querySelector('.kind')!.textContent = st?.demo ? `demo (for ${a.kind})` : a.kind;
    const stateEl = card.querySelector('.state')!;
    stateEl.textContent = !st ? '' : st.alive ? 'alive' : st.dead ? 'dead' : 'missing';
    stateEl.className = `state ${st?.alive ? 'ok' : 'bad'}`;
    card.querySelector('.pane')!.textContent = st ? paneLine(st) : '';
    const problem = card.querySelector<HTMLElement>('.problem')!;
    problem.hidden = !st?.problem || !st.pane;
    problem.textContent = st?.problem ? `baton waits: ${st.problem}` : '';
  }
}

/** An agent card's pane line: where it runs, when it was last active, its screen and what its hooks said. */
function paneLine(st: AgentStatus): string {
  const pane = st.pane ? ` · ${st.pane} · ${st.command ?? ''}` : '';
  const active = st.last_activity ? ` · active ${when(st.last_activity)}` : '';
  return `${st.target}${pane}${active}${screenNote(st.screen)}${hooksNote(st.hooks)}`;
}

/** Its screen as its kind's client draws it, where baton reads it. */
function screenNote(sc: AgentStatus['screen']): string {
  if (!sc) return '';
  const state = sc.state === 'holding' ? 'holding text' : sc.state === 'unknown' ? 'not recognised' : sc.state;
  return ` · screen: ${state}${sc.busy ? ', busy' : ''}`;
}

/** What the agent's own hooks said last: more exact than the screen where the kind has hooks. */
function hooksNote(hooks: AgentStatus['hooks']): string {
  if (!hooks) return '';
  return ` · ${hooks.state === 'permission' ? 'waiting for a permission' : hooks.state} since ${when(hooks.since)}`;
}

export function renderScreens(screens: Record<string, string | null>): void {
  for (const [name, text] of Object.entries(screens)) {
    const pre = document.querySelector<HTMLElement>(`[data-agent="${CSS.escape(name)}"] .screen`);
    if (!pre) continue;
    // Follow the bottom of the screen (where the prompt is), unless someone scrolled up to read.
    const follow = !pre.dataset.seen || pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
    pre.textContent = text ?? '(no pane)';
    pre.dataset.seen = '1';
    if (follow) pre.scrollTop = pre.scrollHeight;
  }
}

const EVENT_FIELDS = ['id', 'from', 'to', 'agent', 'file', 'direction', 'reason', 'note', 'error'];
export function addEvent(e: Record<string, unknown>): void {
  const parts = EVENT_FIELDS.filter((k) => e[k] !== undefined && e[k] !== null).map((k) => `${k}: ${String(e[k])}`);
  const ts = typeof e.ts === 'string' ? e.ts : null;
  const li = h(
    'li',
    { class: `ev ev-${String(e.event).replace(/[^a-z_]/g, '')}` },
    h('time', { datetime: ts ?? '' }, when(ts)),
    ' ',
    h('strong', {}, String(e.event)),
    ' ',
    parts.join(' · '),
  );
  const list = $('events');
  list.prepend(li);
  while (list.children.length > 40) list.lastElementChild?.remove();
}

async function renderPending(): Promise<void> {
  const files = view.status?.pending ?? [];
  const key = files.join('\n');
  const asked = ++pendingAsked; // even when nothing changed: an older fetch still on its way is stale
  if (key === pendingKey) return;
  $('pending-box').hidden = files.length === 0;
  if (!files.length) {
    pendingKey = key;
    $('pending').replaceChildren();
    return;
  }
  const { items } = await getJson<{ items: PendingItem[] }>('api/pending');
  if (asked !== pendingAsked) return; // a newer list is on its way
  pendingKey = key;
  $('pending').replaceChildren(
    ...items.map((p) => {
      const reason = h('input', {
        type: 'text',
        placeholder: 'why (sent back to the sender)',
        'aria-label': `Reason to reject ${p.file}`,
      });
      const approve = h('button', { type: 'button' }, 'Approve');
      const reject = h('button', { type: 'button' }, 'Reject');
      approve.addEventListener('click', () => void act(approve, 'approve', { file: p.file }));
      reject.addEventListener('click', () => {
        if (!reason.value.trim()) {
          say(false, 'say why you reject it');
          reason.focus();
          return;
        }
        void act(reject, 'reject', { file: p.file, reason: reason.value });
      });
      return h(
        'li',
        {},
        h(
          'div',
          { class: 'meta' },
          h('span', { class: 'who' }, p.from),
          ' → ',
          h('span', {}, p.to),
          ' ',
          h('code', {}, p.file),
          p.type && p.type !== 'message' ? h('span', { class: 'badge type' }, p.type) : null,
        ),
        p.subject ? h('div', { class: 'subject' }, p.subject) : null,
        h('div', { class: 'content' }, p.content),
        h('div', { class: 'row' }, approve, reason, reject),
      );
    }),
  );
}

async function showRejected(): Promise<void> {
  try {
    const { count, items } = await getJson<{ count: number; items: RejectedItem[] }>('api/rejected');
    const list = h(
      'ul',
      { class: 'rejected' },
      ...items.map((r) =>
        h(
          'li',
          {},
          h('code', {}, r.stored_as),
          r.direction ? ` (${r.direction})` : '',
          r.rejected_at ? ` · ${when(r.rejected_at)}` : '',
          h('div', {}, r.reason ?? 'no reason recorded'),
        ),
      ),
    );
    openDialog(
      `${count} rejected file${count === 1 ? '' : 's'}${count > items.length ? ` (newest ${items.length})` : ''}`,
      count ? list : h('p', {}, 'Nothing was rejected.'),
    );
  } catch (err) {
    say(false, (err as Error).message);
  }
}
