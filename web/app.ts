/**
 * The baton dashboard page. Everything agents wrote (content, names, subjects, file names, reasons)
 * reaches the DOM through textContent only: there is no innerHTML anywhere in this page's code, and the
 * server's Content-Security-Policy would refuse an inline script even if there were.
 *
 * Data: one snapshot (api/snapshot) with a cursor, then one EventSource from that cursor. Every API path is
 * relative, so the page works under any prefix: `/` for the project's conversation, `/c/<id>/` for each one
 * the overview (/all) lists. The browser resends the last event id on reconnect, so the server replays
 * exactly what was missed; bubbles are also keyed by message ID, so a message can never show twice. This module wires the parts together:
 * dom.ts (elements, the API, the result line), transcript.ts, panels.ts.
 */
import type { Bubble, Snapshot, StatusReport as Status } from '../src/ui/api.js';
import { $, act, getJson, h, say, setToken } from './dom.js';
import { addEvent, applyStatus, renderAgents, renderScreens, resetPanels, tick, view } from './panels.js';
import { live, loadOlder, PAGE, resetTranscript, setNudges } from './transcript.js';

let source: EventSource | null = null;
let starting = false;
let retryTimer: ReturnType<typeof setTimeout> | null = null;

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
    // A note to all is archived even when some panes still wait for it (the daemon keeps trying): not sent twice.
    const ok = await act(
      $<HTMLButtonElement>('send'),
      'send',
      { to: $<HTMLSelectElement>('send-to').value, type: $<HTMLSelectElement>('send-type').value, content: text.value },
      (r) => r.ok || typeof r.id === 'string',
    );
    if (ok) text.value = '';
  });
  text.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  const topic = $<HTMLInputElement>('start-topic');
  $('start-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!topic.value.trim()) {
      say(false, 'write the topic first');
      topic.focus();
      return;
    }
    if (await act($<HTMLButtonElement>('start'), 'start', { topic: topic.value })) topic.value = '';
  });
  $('end').addEventListener('click', () => {
    const reason = $<HTMLInputElement>('end-reason').value;
    void act($<HTMLButtonElement>('end'), 'end', reason.trim() ? { reason } : {});
  });
  $('pause').addEventListener('click', () => void act($<HTMLButtonElement>('pause'), 'pause', {}));
  $('resume').addEventListener('click', () => void act($<HTMLButtonElement>('resume'), 'resume', {}));
  $('approve-all').addEventListener(
    'click',
    () => void act($<HTMLButtonElement>('approve-all'), 'approve', { all: true }),
  );
  $('older').addEventListener('click', () => void loadOlder());
  $('dialog-close').addEventListener('click', () => $<HTMLDialogElement>('dialog').close());
}

function setLive(text: string, ok: boolean): void {
  const l = $('live');
  l.textContent = text;
  l.className = `live ${ok ? 'ok' : 'bad'}`;
}

function connect(cursor: string): void {
  source?.close();
  const es = new EventSource(`api/stream?from=${encodeURIComponent(cursor)}`);
  source = es;
  es.addEventListener('open', () => setLive('live', true));
  es.addEventListener('error', () =>
    setLive(es.readyState === EventSource.CLOSED ? 'disconnected (reload the page)' : 'reconnecting…', false),
  );
  es.addEventListener('hello', (ev) =>
    setToken((JSON.parse((ev as MessageEvent<string>).data) as { token: string }).token),
  );
  es.addEventListener('baton', (ev) => {
    const d = JSON.parse((ev as MessageEvent<string>).data) as {
      e: Record<string, unknown>;
      bubble?: Bubble | null;
      pos?: number;
      nudges?: number;
    };
    addEvent(d.e);
    if (d.bubble) live(d.bubble, d.pos);
    if (d.e.event === 'nudged' && typeof d.e.reply_to === 'string') setNudges(d.e.reply_to, d.nudges ?? 0);
  });
  es.addEventListener('status', (ev) => applyStatus(JSON.parse((ev as MessageEvent<string>).data) as Status));
  es.addEventListener('screens', (ev) =>
    renderScreens(JSON.parse((ev as MessageEvent<string>).data) as Record<string, string | null>),
  );
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
    snap = await getJson<Snapshot>(`api/snapshot?limit=${PAGE}`);
  } catch (err) {
    source?.close();
    starting = false;
    setLive(`cannot load (${(err as Error).message}); retrying…`, false);
    retryTimer = setTimeout(() => void start(retry + 1), Math.min(10_000, 500 * 2 ** retry));
    return;
  }
  starting = false;
  source?.close();
  view.conversation = snap.conversation;
  resetTranscript(snap.conversation.agents, snap.messages.items, snap.messages.start);
  $<HTMLSelectElement>('send-to').replaceChildren(
    ...snap.conversation.agents.map((a) => h('option', { value: a.name }, a.name)),
    h('option', { value: 'all' }, 'all (a note to every agent)'),
  );
  $<HTMLSelectElement>('send-type').replaceChildren(
    ...snap.conversation.types.map((ty) => h('option', { value: ty }, ty)),
  );
  resetPanels(snap.events);
  if (snap.status) applyStatus(snap.status);
  else renderAgents();
  renderScreens(snap.screens);
  connect(snap.cursor);
}

wireControls();
setInterval(tick, 1000);
void start();
