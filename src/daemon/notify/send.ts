/**
 * One attempt to tell one sink (docs/reference.md, "notify"): a webhook's POST, ntfy's JSON publish, a command
 * with the event on its stdin. Each ends within the sink's `timeout_s` whatever the other side does — a
 * receiver that never answers is abandoned, a command that never exits is killed — and its outcome is data.
 * Retrying is the notifier's (core/notify/retry.ts).
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import type { NotifySinkConfig } from '../../config/config.js';
import { ntfyBody, ntfyTarget, type NotifyPayload } from '../../core/notify/payload.js';
import { type Attempt, attemptOf } from '../../core/notify/retry.js';

/** The webhook's signature header: `sha256=` and the hex HMAC-SHA256 of the exact body bytes, keyed by `secret`. */
const SIGNATURE_HEADER = 'X-Baton-Signature';
export const signature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

export type SinkKind = 'webhook' | 'ntfy' | 'command';
export const kindOf = (s: NotifySinkConfig): SinkKind =>
  s.webhook !== undefined ? 'webhook' : s.ntfy !== undefined ? 'ntfy' : 'command';

/** Where `status` says a sink sends, without what may be a secret (a webhook's path, an ntfy topic, arguments). */
export function targetOf(s: NotifySinkConfig): string {
  const url = s.webhook ?? s.ntfy;
  if (url !== undefined) {
    const u = new URL(url);
    return `${u.origin}${u.pathname.length > 1 ? '/…' : '/'}`;
  }
  return s.command?.[0] ?? '';
}

/** `ctx.cwd`: where a command runs (the project's folder). */
export async function attempt(sink: NotifySinkConfig, p: NotifyPayload, ctx: { cwd: string }): Promise<Attempt> {
  const ms = sink.timeout_s * 1000;
  if (sink.webhook !== undefined) {
    const body = JSON.stringify(p);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-baton-event': p.event };
    if (sink.secret !== undefined) headers[SIGNATURE_HEADER] = signature(sink.secret, body);
    return post(sink.webhook, { headers, body }, ms);
  }
  if (sink.ntfy !== undefined) {
    const target = ntfyTarget(sink.ntfy);
    if (!target) return { kind: 'failed', error: 'the ntfy URL names no topic', retry: false };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (sink.token !== undefined) headers.authorization = `Bearer ${sink.token}`;
    const body = JSON.stringify(ntfyBody(p, target.topic, sink.click ?? p.url));
    return post(target.post, { headers, body }, ms);
  }
  return run(sink.command ?? [], { input: JSON.stringify(p), cwd: ctx.cwd, ms, event: p.event });
}

async function post(url: string, req: { headers: Record<string, string>; body: string }, ms: number): Promise<Attempt> {
  try {
    // No redirects: a POST followed to another address becomes a GET there, and says nothing was delivered.
    const res = await fetch(url, { method: 'POST', ...req, redirect: 'manual', signal: AbortSignal.timeout(ms) });
    await res.body?.cancel().catch(() => {});
    return attemptOf(res.status);
  } catch (err) {
    // fetch says only "fetch failed"; why is in its cause (ECONNREFUSED, ENOTFOUND, "bad port").
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === 'TimeoutError' ? `no answer within ${ms / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { kind: 'failed', error: why, retry: true };
  }
}

/** A command with the event on stdin: exit 0 is sent; anything else is said, with the end of its stderr. */
function run(argv: string[], o: { input: string; cwd: string; ms: number; event: string }): Promise<Attempt> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    if (!file) return resolve({ kind: 'failed', error: 'an empty command', retry: false });
    let stderr = '';
    let timedOut = false;
    // Its own process group (detached), so a time limit kills what it started too (`sh -c 'curl …'`).
    const env = { ...process.env, BATON_EVENT: o.event };
    const child = spawn(file, args, { cwd: o.cwd, stdio: ['pipe', 'ignore', 'pipe'], env, detached: true });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, o.ms);
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-300);
    });
    child.stdin.on('error', () => {}); // a command that does not read its stdin closes it early: not a failure
    child.stdin.end(o.input);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ kind: 'failed', error: `cannot run ${file}: ${err.code ?? err.message}`, retry: false });
    });
    // 'exit', not 'close': something it left running in the background may hold its stderr open for long.
    child.on('exit', (code, sig) => {
      clearTimeout(timer);
      setImmediate(() => {
        child.stderr.destroy();
        if (code === 0) return resolve({ kind: 'sent' });
        const tail = stderr.trim().split('\n').pop() ?? '';
        const how = timedOut ? `killed after ${o.ms / 1000} s` : sig ? `killed by ${sig}` : `exit status ${code}`;
        resolve({ kind: 'failed', error: `${file}: ${how}${tail ? ` (${tail})` : ''}`, retry: false });
      });
    });
  });
}
