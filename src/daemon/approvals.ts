/**
 * Moderated mode's approval queue, as a person works it (steering.ts): `baton approve` delivers a pending
 * message through the same take as the pass, `baton reject` refuses it and tells its sender why.
 */
import type { Approval } from '../bus/bus.js';
import { sanitize } from '../core/compose.js';
import { fail, type Reply, type Request } from '../core/requests.js';
import { decide } from '../core/turns.js';
import type { Stage } from './stage.js';

export async function approveAll(stage: Stage, req: Extract<Request, { op: 'approve' }>, name: string): Promise<Reply> {
  const bus = stage.bus;
  // Approved already by this very request (a daemon killed before it answered): say so again.
  const lastId = bus.state().last_message_id;
  const last = lastId ? await bus.record(lastId) : null;
  if (!req.all && last?.approved_by === name)
    return { ok: true, message: `${req.file} approved as ${last.id}`, id: last.id };
  if (!req.all && !req.file) return fail('name a pending file, or --all');
  const targets = req.all ? await bus.approvals() : [await findApproval(stage, req.file ?? '')];
  const lines: string[] = [];
  let ok = true;
  for (const t of targets) {
    if (typeof t === 'string') return fail(t);
    const r = await approve(stage, t, name);
    ok &&= r.ok;
    lines.push(r.message);
  }
  return { ok, message: lines.join('\n') || 'nothing is pending' };
}

async function approve(stage: Stage, a: Approval, request: string): Promise<Reply> {
  const bus = stage.bus;
  const examined = await bus.examineApproval(a);
  if (examined.kind === 'gone') return fail(`${a.key} is gone`);
  if (examined.kind === 'invalid') return fail(`${a.key} is no longer a valid message (${examined.reason}); reject it`);
  const d = decide(bus.state(), a.direction, stage.rules);
  if (d.action !== 'deliver') return fail(`${a.key} cannot be delivered now: ${d.reason}`);
  const took = await stage.take(a, { approved_by: request });
  if (took.kind === 'unavailable')
    return fail(`${a.key} waits: ${a.direction.to}'s pane is unavailable; approve again when it is back`);
  if (took.kind === 'refused') return fail(`${a.key} cannot be delivered now: ${took.reason}`);
  if (took.kind === 'gone' || took.kind === 'changed')
    return fail(`${a.key} ${took.kind === 'gone' ? 'is gone' : 'changed meanwhile; approve it again'}`);
  await bus.events.emit('approved', { file: a.key, id: took.id });
  return {
    ok: true,
    message: `${a.key} approved as ${took.id}${took.kind === 'typing' ? ' (typing it is being retried)' : ''}`,
    id: took.id,
  };
}

export async function reject(stage: Stage, req: Extract<Request, { op: 'reject' }>): Promise<Reply> {
  const p = await findApproval(stage, req.file);
  if (typeof p === 'string') return fail(p);
  const d = p.direction;
  if (!(await stage.bus.refuse(p, `rejected by a person: ${req.reason}`))) return fail(`${p.key} is gone`);
  const err = await stage.typing.notice(
    d.from,
    `[baton] your message ${p.name} to ${d.to} was not delivered. A person said: ${sanitize(req.reason)}\n` +
      '[baton] it is still your turn; write a new message.',
  );
  return {
    ok: true,
    message: `${p.key} rejected${err ? ` (could not tell ${d.from}: ${err})` : ` and ${d.from} was told why`}`,
  };
}

/** Resolve FILE as named in pending/: `<direction>/<name>`, or a bare name when only one folder has it. */
async function findApproval(stage: Stage, file: string): Promise<Approval | string> {
  const all = await stage.bus.approvals();
  const hits = all.filter((p) => p.key === file || p.name === file);
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) return `"${file}" is in more than one folder: name it as ${hits.map((h) => h.key).join(' or ')}`;
  return all.length
    ? `no pending file "${file}" (pending: ${all.map((p) => p.key).join(', ')})`
    : `no pending file "${file}" (nothing is pending)`;
}
