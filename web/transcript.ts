/**
 * The transcript: a chat with one lane per agent (up to four; with more, one column coloured by agent),
 * a person's messages across the middle. Bubbles are keyed by message ID, so a message never shows
 * twice; the page keeps at most MAX_BUBBLES (the oldest are dropped and can be loaded again).
 */
import type { Bubble, Page } from '../src/ui/api.js';
import { $, getJson, h, openDialog, say, when } from './dom.js';

/** More bubbles than this in the page and the oldest are dropped (they can be loaded again). */
const MAX_BUBBLES = 1000;
export const PAGE = 100;

const bubbles = new Map<string, HTMLLIElement>();
/** Each agent's lane, by its place in the config. */
export const lane = new Map<string, number>();
/** Position (in the server's transcript) of the oldest bubble shown. */
let oldest = 0;
/** Bumped by each (re)load, so answers meant for an earlier load are dropped. */
let generation = 0;
let loadingOlder = false;

/** A new snapshot: these agents, these messages (the newest page), starting at position `start`. */
export function resetTranscript(agents: readonly { name: string }[], items: readonly Bubble[], start: number): void {
  generation++;
  lane.clear();
  for (const [i, a] of agents.entries()) lane.set(a.name, i);
  const lanes = agents.length;
  const t = $('transcript');
  t.className = `transcript ${lanes <= 4 ? `lanes lanes-${lanes}` : 'column'}`;
  $('lanes-head').className = `lanes-head ${lanes <= 4 ? `lanes lanes-${lanes}` : 'column'}`;
  $('lanes-head').replaceChildren(
    ...agents.map((a, i) => h('div', { class: `lane-${Math.min(i, 3)} c${i % 8}` }, a.name)),
  );
  t.replaceChildren();
  bubbles.clear();
  for (const b of items) {
    const li = renderBubble(b);
    bubbles.set(b.id, li);
    t.append(li);
  }
  oldest = start;
  $('older').hidden = oldest === 0;
  $('older').textContent = `Load older messages (${oldest} more)`;
  // Loaded: only now may the page say there is nothing (it once said "No messages
  // yet" while a conversation of 20 was loading).
  const empty = $('empty');
  empty.textContent = 'No messages yet. They appear here as they are delivered.';
  empty.hidden = bubbles.size > 0;
  scroller().scrollTop = scroller().scrollHeight;
}

/** A live message: shown unless it is older than the loaded ones (typed again after a crash). */
export function live(b: Bubble, pos: number | undefined): void {
  if (bubbles.has(b.id) || pos === undefined || pos < 0 || pos >= oldest) upsert(b);
}

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
  const li = h('li', {
    class: `msg ${user ? 'person' : `lane-${Math.min(i, 3)} c${i % 8}`}`,
    id: `m-${b.id}`,
    tabindex: '-1',
  });
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
    b.redelivered
      ? h(
          'span',
          { class: 'badge warn', title: 'typed again after a crash; it may show twice in the pane' },
          'redelivered',
        )
      : null,
    h(
      'span',
      { class: 'badge nudge', hidden: b.nudges === 0, title: 'reminders sent while the reply to this was owed' },
      `${b.nudges} reminder${b.nudges === 1 ? '' : 's'}`,
    ),
  );
  const content = h('div', { class: 'content' }, b.content);
  li.append(meta);
  if (b.subject) li.append(h('div', { class: 'subject' }, b.subject));
  li.append(content);
  if (b.truncated) {
    const more = h('button', { type: 'button', class: 'more' }, `Show all (${b.length.toLocaleString()} characters)`);
    more.addEventListener('click', async () => {
      try {
        const full = await getJson<Bubble>(`api/messages/${encodeURIComponent(b.id)}`);
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

export function setNudges(id: string, n: number): void {
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

export async function loadOlder(): Promise<void> {
  const button = $<HTMLButtonElement>('older');
  button.disabled = true;
  loadingOlder = true;
  const gen = generation;
  try {
    const page = await getJson<Page>(`api/messages?before=${oldest}&limit=${PAGE}`);
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
    const b = await getJson<Bubble>(`api/messages/${encodeURIComponent(id)}`);
    const li = renderBubble(b);
    li.removeAttribute('id'); // not the transcript's copy: "Load older" may bring that one later
    openDialog(id, h('ol', { class: 'transcript' }, li));
  } catch (err) {
    openDialog(id, h('p', {}, (err as Error).message));
  }
}
