/**
 * The baton dashboard page. Everything agents wrote (content, names, subjects, file names, reasons)
 * reaches the DOM through textContent only: there is no innerHTML anywhere in this file, and the
 * server's Content-Security-Policy would refuse an inline script even if there were.
 *
 * Data: one snapshot (/api/snapshot) with a cursor, then one EventSource from that cursor. The browser
 * resends the last event id on reconnect, so the server replays exactly what was missed; bubbles are
 * also keyed by message ID, so a message can never show twice.
 */

import type { Bubble, Conversation, ControlReply, Page, PendingItem, RejectedItem, Snapshot, StatusReport as Status } from '../src/ui/api.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing from the page`);
  return e as T;
};

type Child = Node | string | null | undefined | false;
/** Build an element; strings become text nodes, never markup. */
function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, string | boolean> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = String(v);
    else if (typeof v === 'boolean') e.toggleAttribute(k, v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/** The per-run token controls need; the stream sends it again on every connection (after a restart too). */
let token = document.querySelector<HTMLMetaElement>('meta[name="baton-token"]')?.content ?? '';
/** More bubbles than this in the page and the oldest are dropped (they can be loaded again). */
const MAX_BUBBLES = 1000;
const PAGE = 100;

let conversation: Conversation;
let status: Status | null = null;
let source: EventSource | null = null;
const bubbles = new Map<string, HTMLLIElement>();
/** Position (in the server's transcript) of the oldest bubble shown. */
let oldest = 0;
let pendingKey = '';
let pendingAsked = 0;
/** Bumped by each (re)load, so answers meant for an earlier load are dropped. */
let generation = 0;
let loadingOlder = false;
let starting = false;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
const lane = new Map<string, number>();

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { headers: { accept: 'application/json' } });
  const body = (await r.json()) as T & { error?: string };
  if (!r.ok) throw new Error(body.error ?? `${r.status} ${r.statusText}`);
  return body;
}

async function control(op: string, body: Record<string, unknown>): Promise<ControlReply> {
  const r = await fetch(`/api/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-baton-token': token }, body: JSON.stringify(body) });
  const reply = (await r.json().catch(() => ({ ok: false, message: `${r.status} ${r.statusText}` }))) as ControlReply;
  return { ok: r.ok && reply.ok, message: reply.message };
}

// ---------- transcript

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleTimeString() : 'not typed yet');

function replyLink(id: string): HTMLAnchorElement {
  const a = h('a', { class: 'reply', href: `#m-${id}`, title: `in reply to ${id}` }, `↩ ${id}`);
  a.addEventListener('click', (ev) => {
    ev.preventDefault();
    void showMessage(id);
  });
  return a;
}

function renderBubble(b: Bubble): HTMLLIElement {
  const user = b.sender === 'user';
  const i = lane.get(b.sender) ?? 0;
  const li = h('li', { class: `msg ${user ? 'person' : `lane-${Math.min(i, 3)} c${i % 8}`}`, id: `m-${b.id}`, tabindex: '-1' });
  li.dataset.id = b.id;
  const meta = h(
    'div',
    { class: 'meta' },
    h('span', { class: 'who' }, b.sender),
    ' → ',
    h('span', { class: 'to' }, b.receiver),
    ' ',
    h('a', { class: 'id', href: `#m-${b.id}` }, b.id),
    ' ',
    b.reply_to ? replyLink(b.reply_to) : null,
    ' ',
    h('time', { datetime: b.delivered_at ?? '', title: b.delivered_at ?? '' }, when(b.delivered_at)),
    b.type !== 'message' ? h('span', { class: 'badge type' }, b.type) : null,
    b.redelivered ? h('span', { class: 'badge warn', title: 'typed again after a crash; it may show twice in the pane' }, 'redelivered') : null,
    h('span', { class: 'badge nudge', hidden: b.nudges === 0, title: 'reminders sent while the reply to this was owed' }, `${b.nudges} reminder${b.nudges === 1 ? '' : 's'}`),
  );
  const content = h('div', { class: 'content' }, b.content);
  li.append(meta);
  if (b.subject) li.append(h('div', { class: 'subject' }, b.subject));
  li.append(content);
  if (b.truncated) {
    const more = h('button', { type: 'button', class: 'more' }, `Show all (${b.length.toLocaleString()} characters)`);
    more.addEventListener('click', async () => {
      try {
        const full = await getJson<Bubble>(`/api/messages/${encodeURIComponent(b.id)}`);
        content.textContent = full.content;
        more.remove();
      } catch (err) {
        more.textContent = `Could not load: ${(err as Error).message}`;
      }
    });
    li.append(more);
  }
  return li;
}

function setNudges(id: string, n: number): void {
  const badge = bubbles.get(id)?.querySelector<HTMLElement>('.nudge');
  if (!badge) return;
  badge.hidden = n === 0;
  badge.textContent = `${n} reminder${n === 1 ? '' : 's'}`;
}

const scroller = () => $('scroller');
const nearBottom = () => scroller().scrollHeight - scroller().scrollTop - scroller().clientHeight < 120;

/** Add or update one message at the end (live), keeping the reader at the bottom if they were there. */
function upsert(b: Bubble): void {
  const old = bubbles.get(b.id);
  if (old) {
    const fresh = renderBubble(b);
    old.replaceWith(fresh);
    bubbles.set(b.id, fresh);
    return;
  }
  const stick = nearBottom();
  const li = renderBubble(b);
  $('transcript').append(li);
  bubbles.set(b.id, li);
  $('empty').hidden = true;
  if (stick) {
    trim();
    scroller().scrollTop = scroller().scrollHeight;
  }
}

function trim(): void {
  if (loadingOlder) return; // positions must hold still while an older page is on its way
  const list = $('transcript');
  while (bubbles.size > MAX_BUBBLES && list.firstElementChild) {
    const first = list.firstElementChild as HTMLLIElement;
    bubbles.delete(first.dataset.id ?? '');
    first.remove();
    oldest++;
  }
  $('older').hidden = oldest === 0;
  $('older').textContent = `Load older messages (${oldest} more)`;
}

async function loadOlder(): Promise<void> {
  const button = $<HTMLButtonElement>('older');
  button.disabled = true;
  loadingOlder = true;
  const gen = generation;
  try {
    const page = await getJson<Page>(`/api/messages?before=${oldest}&limit=${PAGE}`);
    if (gen !== generation) return; // the page was reloaded meanwhile
    const before = scroller().scrollHeight;
    const frag = document.createDocumentFragment();
    for (const b of page.items) {
      if (bubbles.has(b.id)) continue;
      const li = renderBubble(b);
      bubbles.set(b.id, li);
      frag.append(li);
    }
    $('transcript').prepend(frag);
    oldest = page.start;
    scroller().scrollTop += scroller().scrollHeight - before;
    button.hidden = oldest === 0;
    button.textContent = `Load older messages (${oldest} more)`;
  } catch (err) {
    say(false, `could not load older messages: ${(err as Error).message}`);
  } finally {
    button.disabled = false;
    loadingOlder = false;
  }
}

/** Jump to a message, or show it in the dialog when it is not loaded. */
async function showMessage(id: string): Promise<void> {
  const li = bubbles.get(id);
  if (li) {
    li.scrollIntoView({ block: 'center' });
    li.focus();
    li.classList.add('flash');
    setTimeout(() => li.classList.remove('flash'), 1500);
    return;
  }
  try {
    const b = await getJson<Bubble>(`/api/messages/${encodeURIComponent(id)}`);
    const li = renderBubble(b);
    li.removeAttribute('id'); // not the transcript's copy: "Load older" may bring that one later
    openDialog(id, h('ol', { class: 'transcript' }, li));
  } catch (err) {
    openDialog(id, h('p', {}, (err as Error).message));
  }
}

// ---------- status, agents, events

const duration = (s: number) => (s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`);

function fact(label: string, value: Node | string, cls = ''): Node[] {
  return [h('dt', {}, label), h('dd', { class: cls }, value)];
}

function renderFacts(): void {
  const s = status;
  const dl = $('facts');
  if (!s) {
    dl.replaceChildren(...fact('status', 'unknown'));
    return;
  }
  const state = s.finished ? `finished: ${s.finished.reason}${s.finished.note ? ` (${s.finished.note})` : ''}` : s.stalled ? `stalled (${s.nudges} reminders unanswered)` : 'running';
  const held = Object.entries(s.held).filter(([, n]) => n > 0);
  const heldNode = held.length
    ? h('span', {}, ...held.map(([d, n], i) => h('span', { class: 'held', title: s.waiting[d] ?? '' }, `${i ? ', ' : ''}${d}: ${n}${s.waiting[d] ? ` (${s.waiting[d]})` : ''}`)))
    : 'none';
  const rejected = h('button', { type: 'button', class: 'linkish', id: 'rejected-button', title: 'show why' }, String(s.rejected));
  rejected.addEventListener('click', () => void showRejected());
  dl.replaceChildren(
    ...fact('daemon', s.daemon.running ? `running (pid ${s.daemon.pid})` : 'not running', s.daemon.running ? 'ok' : 'bad'),
    ...fact('policy', s.policy),
    ...fact('turn', h('span', {}, h('strong', {}, s.current_turn ?? '—'), h('span', { id: 'turn-for' }, ''))),
    ...fact('messages', `${s.message_counter}${s.max_turns ? ` / ${s.max_turns}` : ''}`),
    ...fact('conversation', state, s.finished || s.stalled ? 'bad' : 'ok'),
    ...(s.nudges ? fact('reminders', String(s.nudges)) : []),
    ...fact('held', heldNode),
    ...(s.pending.length ? fact('pending', String(s.pending.length)) : []),
    ...fact('rejected', rejected),
  );
  tick();
}

function tick(): void {
  const span = document.getElementById('turn-for');
  if (!span || !status?.turn_started_at || status.finished) {
    if (span) span.textContent = '';
    return;
  }
  const s = Math.max(0, Math.round((Date.now() - Date.parse(status.turn_started_at)) / 1000));
  span.textContent = ` for ${duration(s)}`;
}

function renderAgents(): void {
  const box = $('agents');
  for (const a of conversation.agents) {
    let card = box.querySelector<HTMLElement>(`[data-agent="${CSS.escape(a.name)}"]`);
    if (!card) {
      card = h(
        'article',
        { class: `agent c${(lane.get(a.name) ?? 0) % 8}` },
        h('h3', {}, h('span', { class: 'name' }, a.name), ' ', h('small', {}, a.kind), ' ', h('span', { class: 'state' }, '')),
        h('p', { class: 'pane' }, ''),
        h('p', { class: 'problem', hidden: true }, ''),
        h('pre', { class: 'screen', tabindex: '0', 'aria-label': `${a.name}'s screen (read-only)` }, ''),
      );
      card.dataset.agent = a.name;
      box.append(card);
    }
    const st = status?.agents[a.name];
    const stateEl = card.querySelector('.state')!;
    stateEl.textContent = !st ? '' : st.alive ? 'alive' : st.dead ? 'dead' : 'missing';
    stateEl.className = `state ${st?.alive ? 'ok' : 'bad'}`;
    card.querySelector('.pane')!.textContent = st ? `${st.target}${st.pane ? ` · ${st.pane} · ${st.command ?? ''}` : ''}${st.last_activity ? ` · active ${when(st.last_activity)}` : ''}` : '';
    const problem = card.querySelector<HTMLElement>('.problem')!;
    problem.hidden = !st?.problem || !st.pane;
    problem.textContent = st?.problem ? `baton waits: ${st.problem}` : '';
  }
}

function renderScreens(screens: Record<string, string | null>): void {
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
function addEvent(e: Record<string, unknown>): void {
  const parts = EVENT_FIELDS.filter((k) => e[k] !== undefined && e[k] !== null).map((k) => `${k}: ${String(e[k])}`);
  const ts = typeof e.ts === 'string' ? e.ts : null;
  const li = h('li', { class: `ev ev-${String(e.event).replace(/[^a-z_]/g, '')}` }, h('time', { datetime: ts ?? '' }, when(ts)), ' ', h('strong', {}, String(e.event)), ' ', parts.join(' · '));
  const list = $('events');
  list.prepend(li);
  while (list.children.length > 40) list.lastElementChild?.remove();
}

async function renderPending(): Promise<void> {
  const files = status?.pending ?? [];
  const key = files.join('\n');
  const asked = ++pendingAsked; // even when nothing changed: an older fetch still on its way is stale
  if (key === pendingKey) return;
  $('pending-box').hidden = files.length === 0;
  if (!files.length) {
    pendingKey = key;
    $('pending').replaceChildren();
    return;
  }
  const { items } = await getJson<{ items: PendingItem[] }>('/api/pending');
  if (asked !== pendingAsked) return; // a newer list is on its way
  pendingKey = key;
  $('pending').replaceChildren(
    ...items.map((p) => {
      const reason = h('input', { type: 'text', placeholder: 'why (sent back to the sender)', 'aria-label': `Reason to reject ${p.file}` });
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
        h('div', { class: 'meta' }, h('span', { class: 'who' }, p.from), ' → ', h('span', {}, p.to), ' ', h('code', {}, p.file), p.type && p.type !== 'message' ? h('span', { class: 'badge type' }, p.type) : null),
        p.subject ? h('div', { class: 'subject' }, p.subject) : null,
        h('div', { class: 'content' }, p.content),
        h('div', { class: 'row' }, approve, reason, reject),
      );
    }),
  );
}

async function showRejected(): Promise<void> {
  try {
    const { count, items } = await getJson<{ count: number; items: RejectedItem[] }>('/api/rejected');
    const list = h(
      'ul',
      { class: 'rejected' },
      ...items.map((r) => h('li', {}, h('code', {}, r.stored_as), r.direction ? ` (${r.direction})` : '', r.rejected_at ? ` · ${when(r.rejected_at)}` : '', h('div', {}, r.reason ?? 'no reason recorded'))),
    );
    openDialog(`${count} rejected file${count === 1 ? '' : 's'}${count > items.length ? ` (newest ${items.length})` : ''}`, count ? list : h('p', {}, 'Nothing was rejected.'));
  } catch (err) {
    say(false, (err as Error).message);
  }
}

function openDialog(title: string, body: Node): void {
  $('dialog-title').textContent = title;
  $('dialog-body').replaceChildren(body);
  const d = $<HTMLDialogElement>('dialog');
  if (!d.open) d.showModal();
  $('dialog-close').focus();
}

// ---------- controls

function say(ok: boolean, message: string): void {
  const p = $('result');
  p.textContent = message;
  p.className = `result ${ok ? 'ok' : 'bad'}`;
}

async function act(button: HTMLButtonElement, op: string, body: Record<string, unknown>): Promise<boolean> {
  button.disabled = true;
  try {
    const r = await control(op, body);
    say(r.ok, r.message);
    return r.ok;
  } catch (err) {
    say(false, `${op} failed: ${(err as Error).message}`);
    return false;
  } finally {
    button.disabled = false;
  }
}

function wireControls(): void {
  const form = $<HTMLFormElement>('send-form');
  const text = $<HTMLTextAreaElement>('send-text');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!text.value.trim()) {
      say(false, 'write a message first');
      text.focus();
      return;
    }
    const ok = await act($<HTMLButtonElement>('send'), 'send', { to: $<HTMLSelectElement>('send-to').value, type: $<HTMLSelectElement>('send-type').value, content: text.value });
    if (ok) text.value = '';
  });
  text.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  $('end').addEventListener('click', () => {
    const reason = $<HTMLInputElement>('end-reason').value;
    void act($<HTMLButtonElement>('end'), 'end', reason.trim() ? { reason } : {});
  });
  $('resume').addEventListener('click', () => void act($<HTMLButtonElement>('resume'), 'resume', {}));
  $('approve-all').addEventListener('click', () => void act($<HTMLButtonElement>('approve-all'), 'approve', { all: true }));
  $('older').addEventListener('click', () => void loadOlder());
  $('dialog-close').addEventListener('click', () => $<HTMLDialogElement>('dialog').close());
}

// ---------- wiring

function setLive(text: string, ok: boolean): void {
  const l = $('live');
  l.textContent = text;
  l.className = `live ${ok ? 'ok' : 'bad'}`;
}

function applyStatus(s: Status): void {
  status = s;
  renderFacts();
  renderAgents();
  void renderPending().catch((err: Error) => say(false, err.message));
}

function connect(cursor: string): void {
  source?.close();
  const es = new EventSource(`/api/stream?from=${encodeURIComponent(cursor)}`);
  source = es;
  es.addEventListener('open', () => setLive('live', true));
  es.addEventListener('error', () => setLive(es.readyState === EventSource.CLOSED ? 'disconnected (reload the page)' : 'reconnecting…', false));
  es.addEventListener('hello', (ev) => {
    token = (JSON.parse((ev as MessageEvent<string>).data) as { token: string }).token;
  });
  es.addEventListener('baton', (ev) => {
    const d = JSON.parse((ev as MessageEvent<string>).data) as { e: Record<string, unknown>; bubble?: Bubble | null; pos?: number; nudges?: number };
    addEvent(d.e);
    // A message older than the loaded ones (typed again after a crash) stays where "Load older" finds it.
    if (d.bubble && (bubbles.has(d.bubble.id) || d.pos === undefined || d.pos < 0 || d.pos >= oldest)) upsert(d.bubble);
    if (d.e.event === 'nudged' && typeof d.e.reply_to === 'string') setNudges(d.e.reply_to, d.nudges ?? 0);
  });
  es.addEventListener('status', (ev) => applyStatus(JSON.parse((ev as MessageEvent<string>).data) as Status));
  es.addEventListener('screens', (ev) => renderScreens(JSON.parse((ev as MessageEvent<string>).data) as Record<string, string | null>));
  es.addEventListener('reset', () => {
    if (!starting) void start();
  });
}

/** Load a snapshot and follow from it; on failure keep the old view and try again, slower each time. */
async function start(retry = 0): Promise<void> {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  starting = true;
  let snap: Snapshot;
  try {
    snap = await getJson<Snapshot>(`/api/snapshot?limit=${PAGE}`);
  } catch (err) {
    source?.close();
    starting = false;
    setLive(`cannot load (${(err as Error).message}); retrying…`, false);
    retryTimer = setTimeout(() => void start(retry + 1), Math.min(10_000, 500 * 2 ** retry));
    return;
  }
  starting = false;
  generation++;
  source?.close();
  conversation = snap.conversation;
  lane.clear();
  conversation.agents.forEach((a, i) => lane.set(a.name, i));
  const lanes = conversation.agents.length;
  const t = $('transcript');
  t.className = `transcript ${lanes <= 4 ? `lanes lanes-${lanes}` : 'column'}`;
  $('lanes-head').className = `lanes-head ${lanes <= 4 ? `lanes lanes-${lanes}` : 'column'}`;
  $('lanes-head').replaceChildren(...conversation.agents.map((a, i) => h('div', { class: `lane-${Math.min(i, 3)} c${i % 8}` }, a.name)));
  t.replaceChildren();
  bubbles.clear();
  for (const b of snap.messages.items) {
    const li = renderBubble(b);
    bubbles.set(b.id, li);
    t.append(li);
  }
  oldest = snap.messages.start;
  $('older').hidden = oldest === 0;
  $('older').textContent = `Load older messages (${oldest} more)`;
  $('empty').hidden = bubbles.size > 0;
  const to = $<HTMLSelectElement>('send-to');
  to.replaceChildren(...conversation.agents.map((a) => h('option', { value: a.name }, a.name)));
  $<HTMLSelectElement>('send-type').replaceChildren(...conversation.types.map((ty) => h('option', { value: ty }, ty)));
  $('agents').replaceChildren();
  $('events').replaceChildren();
  pendingKey = '';
  if (snap.status) applyStatus(snap.status);
  else renderAgents();
  renderScreens(snap.screens);
  scroller().scrollTop = scroller().scrollHeight;
  connect(snap.cursor);
}

wireControls();
setInterval(tick, 1000);
void start();

