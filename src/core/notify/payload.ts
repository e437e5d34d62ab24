/**
 * What a sink is sent (docs/reference.md, "notify"): one JSON event — a webhook's body and a command's stdin
 * alike — and ntfy's own publish format built from it. Pure.
 */
import type { Notification } from './cooldown.js';
import type { NotifyEvent } from './happening.js';

/** The conversation's name (its folder, or `bus.conversation`), the machine that saw it, the dashboard's address. */
export type NotifyContext = { conversation: string; host: string; url: string | null };

/** One notification as JSON: `event` and `details` as the conversation's log has them, with text for a person. */
export interface NotifyPayload {
  event: NotifyEvent;
  conversation: string;
  host: string;
  agent: string | null;
  /** For `error`: lease_lost, config_rejected, database_away, store_changed. */
  error?: string | undefined;
  /** The latest (`at`) and first (`since`) of the `count` happenings it stands for (ISO, UTC). */
  at: string;
  count: number;
  since: string;
  title: string;
  message: string;
  details: Record<string, unknown>;
  url: string | null;
  /** `baton notify --test`: a sample, nothing happened. */
  test?: true | undefined;
}

const words = (v: unknown, max = 300): string => {
  if (Array.isArray(v)) return cap(v.map((x) => words(x, max)).join(', '), max);
  return cap(typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v), max);
};
const cap = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

const usd = (v: unknown): string => (typeof v === 'number' ? `$${v.toFixed(2)}` : '?');

const ERROR_TEXT: Record<string, string> = {
  lease_lost: 'its daemon lost the lease',
  config_rejected: 'config.json was changed and is invalid; the daemon keeps its last good config',
  database_away: 'the database has been unreachable for a while; nothing is delivered until it is back',
  store_changed: 'its store changed under the daemon; the daemon stopped',
};

/** A title and one or two sentences a person reads on a phone's lock screen. */
function textOf(n: Notification, conversation: string): { title: string; message: string } {
  const { event, agent, details: d } = n.happening;
  const who = agent ?? 'an agent';
  const again = n.count > 1 ? ` (${n.count} times since ${new Date(n.since).toISOString().slice(11, 16)} UTC)` : '';
  const say = (title: string, message: string) => ({
    title: `baton ${conversation}: ${title}`,
    message: message + again,
  });
  switch (event) {
    case 'blocked': {
      const q = words(d.question);
      return say(`${who} needs you`, `${who} waits at a ${words(d.kind) || 'dialog'}${q ? `: ${q}` : ''}`);
    }
    case 'finished':
      return say('finished', `The conversation finished: ${words(d.reason)}${d.note ? ` (${words(d.note)})` : ''}`);
    case 'stalled':
      return say(`${who} stalled`, `${who} stayed silent after ${words(d.nudges)} reminders`);
    case 'budget':
      return say(
        'budget reached',
        `Paused: ${agent ? `${agent}'s turns` : 'its agents'} cost ${usd(d.spent_usd)} of a budget of ${usd(d.max_usd)}; baton resume goes on`,
      );
    case 'loop':
      return say(
        'going in circles',
        `Paused: no progress${d.evidence ? ` in ${words(d.evidence, 200)}` : ''}; baton resume goes on`,
      );
    case 'error': {
      const what = ERROR_TEXT[n.happening.error ?? ''] ?? 'something went wrong';
      return say('error', `${what}${d.error ? `: ${words(d.error)}` : ''}`);
    }
  }
}

export function payloadOf(n: Notification, ctx: NotifyContext): NotifyPayload {
  const h = n.happening;
  return {
    event: h.event,
    conversation: ctx.conversation,
    host: ctx.host,
    agent: h.agent,
    ...(h.error ? { error: h.error } : {}),
    at: new Date(n.at).toISOString(),
    count: n.count,
    since: new Date(n.since).toISOString(),
    ...textOf(n, ctx.conversation),
    details: h.details,
    url: ctx.url,
  };
}

/** The sample `baton notify --test` sends: marked as a test, about nothing that happened. */
export function testPayload(ctx: NotifyContext, now: number): NotifyPayload {
  const at = new Date(now).toISOString();
  return {
    event: 'finished',
    conversation: ctx.conversation,
    host: ctx.host,
    agent: null,
    at,
    count: 1,
    since: at,
    title: `baton ${ctx.conversation}: test`,
    message: 'A test notification from baton notify --test: this sink works.',
    details: {},
    url: ctx.url,
    test: true,
  };
}

/** ntfy's priority (1 min … 5 max: a person is needed now → 4; news → 3; a test → 2) and tag (a phone emoji). */
const NTFY: Record<NotifyEvent, [priority: number, tag: string]> = {
  blocked: [4, 'raising_hand'],
  stalled: [4, 'hourglass'],
  error: [4, 'warning'],
  budget: [4, 'moneybag'],
  loop: [3, 'repeat'],
  finished: [3, 'checkered_flag'],
};

/** A `ntfy` URL as ntfy's JSON publishing wants it: the server's root to POST to, and the topic. */
export function ntfyTarget(url: string): { post: string; topic: string } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const parts = u.pathname.split('/').filter(Boolean);
  const topic = parts.pop();
  if (!topic) return null;
  return { post: `${u.origin}/${parts.map((p) => `${p}/`).join('')}`, topic: decodeURIComponent(topic) };
}

/** ntfy's JSON publish body (https://docs.ntfy.sh/publish/#publish-as-json). `click`: where a tap leads. */
export function ntfyBody(p: NotifyPayload, topic: string, click: string | null): Record<string, unknown> {
  return {
    topic,
    title: p.title,
    message: p.message,
    priority: p.test ? 2 : NTFY[p.event][0],
    tags: p.test ? ['test_tube'] : [NTFY[p.event][1]],
    ...(click ? { click } : {}),
  };
}
