/**
 * The overview page (/all, or / when baton ui serves no one conversation): every conversation of this
 * machine's daemon, a row each, as `baton ls` lists them, updated live from one EventSource (the server sends
 * a `listing` whenever it changed). Each row's folder leads to its conversation's view (/c/<id>/). Rows are
 * kept by id and updated in place, so a link keeps its focus while the listing changes around it; agent-
 * and folder-derived text reaches the DOM through textContent only.
 */
import type { Overview, OverviewRow } from '../src/ui/api.js';
import { $, h } from './dom.js';

const COLUMNS = ['folder', 'bus', 'policy', 'turn', 'for', 'messages', 'cost', 'state', 'waiting'] as const;
type Column = (typeof COLUMNS)[number];

interface Shown {
  tr: HTMLTableRowElement;
  cells: Record<Column, HTMLTableCellElement>;
  link: HTMLAnchorElement;
  config: HTMLElement;
  /** The turn's seconds when the listing came, and when it came: the "for" cell ticks between listings. */
  seconds: number | null;
  at: number;
}

const shown = new Map<string, Shown>();

const age = (s: number): string =>
  s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;

function make(r: OverviewRow): Shown {
  const link = h('a', { href: r.path });
  const config = h('div', { class: 'config' });
  const cells = Object.fromEntries(COLUMNS.map((c) => [c, h('td', { 'data-col': c })])) as Shown['cells'];
  cells.folder.append(link, config);
  for (const c of ['for', 'messages', 'cost', 'waiting'] as const) cells[c].classList.add('num');
  const tr = h('tr', { 'data-id': r.id }, ...COLUMNS.map((c) => cells[c]));
  return { tr, cells, link, config, seconds: null, at: 0 };
}

function stateOf(r: OverviewRow): string {
  if (r.skipped) return `skipped: ${r.skipped}`;
  if (!r.ok) return `unreadable: ${r.problem}`;
  const run = r.own_daemon ? `${r.run} (own daemon)` : r.run;
  // Its agents here have no pane (a reboot, a pane that died): it waits for `baton up` in its folder.
  const down = r.agents_down?.length ? `, waits for "baton up" (no pane: ${r.agents_down.join(', ')})` : '';
  // Blocked on a person (docs/protocol.md §12): who waits, at what.
  return `${r.blocked ? `${run}, blocked: ${r.blocked.agent} (${r.blocked.kind})` : run}${down}`;
}

/** What its turns cost so far; a model with no price is named (its cost is not in the sum). */
function costOf(r: OverviewRow): { text: string; title: string } {
  if (!r.ok) return { text: '-', title: '' };
  const x = r.cost_usd ?? 0;
  const text = x === 0 ? '$0' : x >= 0.01 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`;
  return r.unpriced?.length
    ? { text: `${text}+`, title: `no price for model ${r.unpriced.join(', ')}: its cost is not in the sum` }
    : { text, title: '' };
}

function update(s: Shown, r: OverviewRow): void {
  s.link.textContent = r.folder;
  s.link.href = r.path;
  s.config.textContent = r.config ?? '(the default config)';
  const { cells } = s;
  const bus = r.ok && r.conversation ? `${r.bus}:${r.conversation}` : r.bus;
  cells.bus.textContent = r.host ? `${bus} (as ${r.host})` : bus;
  cells.policy.textContent = r.ok ? r.policy : '-';
  cells.turn.textContent = r.ok ? (r.turn ?? '-') : '-';
  cells.messages.textContent = r.ok ? String(r.messages) : '-';
  cells.waiting.textContent = r.ok ? String(r.waiting) : '-';
  const cost = costOf(r);
  cells.cost.textContent = cost.text;
  cells.cost.title = cost.title;
  cells.state.textContent = stateOf(r);
  cells.state.className = `run-${r.skipped ? 'skipped' : r.ok ? (r.blocked ? 'blocked' : r.run) : 'unreadable'}`;
  cells.state.title =
    r.ok && r.blocked ? `${r.blocked.agent} waits since ${r.blocked.since}: ${r.blocked.question}` : '';
  s.seconds = r.ok ? r.seconds_in_turn : null;
  s.at = Date.now();
  tick1(s);
}

function tick1(s: Shown): void {
  s.cells.for.textContent = s.seconds === null ? '-' : age(s.seconds + Math.floor((Date.now() - s.at) / 1000));
}

function render(o: Overview): void {
  const daemon = o.daemon
    ? `The machine's daemon: pid ${o.daemon.pid} on ${o.daemon.host} since ${new Date(o.daemon.started_at).toLocaleString()}`
    : "The machine's daemon is not running.";
  $('daemon').textContent = `${daemon} Registry: ${o.registry}`;
  const problem = $('problem');
  problem.hidden = o.problem === null;
  problem.textContent = o.problem ?? '';
  $('home-link').hidden = o.home === null;
  const ids = new Set(o.conversations.map((r) => r.id));
  for (const [id, s] of shown) {
    if (ids.has(id)) continue;
    s.tr.remove();
    shown.delete(id);
  }
  const body = $('rows');
  for (const r of o.conversations) {
    let s = shown.get(r.id);
    if (!s) shown.set(r.id, (s = make(r)));
    update(s, r);
    body.append(s.tr); // in the listing's order (append moves an element already there)
  }
  const empty = $('empty');
  empty.hidden = o.conversations.length > 0;
  empty.textContent = 'No conversation registered: "baton up" in a project hands one to the machine\'s daemon.';
}

function setLive(text: string, ok: boolean): void {
  const l = $('live');
  l.textContent = text;
  l.className = `live ${ok ? 'ok' : 'bad'}`;
}

function connect(): void {
  const es = new EventSource('/all/api/stream');
  es.addEventListener('open', () => setLive('live', true));
  es.addEventListener('error', () =>
    setLive(es.readyState === EventSource.CLOSED ? 'disconnected (reload the page)' : 'reconnecting…', false),
  );
  es.addEventListener('listing', (ev) => render(JSON.parse((ev as MessageEvent<string>).data) as Overview));
}

setInterval(() => {
  for (const s of shown.values()) tick1(s);
}, 1000);
connect();
