/**
 * A person's requests on the files bus: one file per request in `message_dir/requests/`, answered by a
 * reply file beside it. The daemon takes a request (renames it) before acting on it, so a command that
 * gives up waiting can withdraw it only while nothing has been done; the taken request is removed only
 * after its reply is written, so a daemon killed mid-way does it again at its next start (a person's
 * message is not typed twice: see daemon/person.ts, send).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { RequestSchema, type Reply, type Request } from '../../core/requests.js';
import { createAtomic, ensureDir, isErrno, NAME_MAX, writeAtomic } from '../../lib/fsx.js';
import { StatCache } from '../../lib/stat-cache.js';
import { namesIn } from '../folders/inbox.js';

const REQ = '.req.json';
const REPLY = '.reply.json';
/** A request the daemon has taken: the asking command can no longer withdraw it. */
const TAKEN = '.taken';

const base = (name: string) => (name.endsWith(TAKEN) ? name.slice(0, -TAKEN.length) : name).slice(0, -REQ.length);
const replyFile = (dir: string, name: string) => join(dir, base(name) + REPLY);

/** Write a request; returns its name (time-ordered, so requests run in the order they were made). */
export async function submitRequest(dir: string, req: Request): Promise<string> {
  await ensureDir(dir);
  for (;;) {
    const name = `${process.hrtime.bigint().toString().padStart(20, '0')}-${randomBytes(3).toString('hex')}${REQ}`;
    if (await createAtomic(join(dir, name), JSON.stringify(req))) return name;
  }
}

/** Wait for the reply to `name`, then remove it. Null on timeout (the request stays queued). */
export async function awaitReply(dir: string, name: string, timeoutMs: number): Promise<Reply | null> {
  const file = replyFile(dir, name);
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const reply = JSON.parse(await readFile(file, 'utf8')) as Reply;
      await unlink(file).catch(() => {});
      return reply;
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
    if (Date.now() > until) return null;
    await sleep(20);
  }
}

/** Take an unanswered request back. False when it is gone: the daemon has taken it (its reply follows). */
export async function withdrawRequest(dir: string, name: string): Promise<boolean> {
  return unlink(join(dir, name))
    .then(() => true)
    .catch(() => false);
}

/** Requests waiting, oldest first: new ones, and ones a killed daemon had taken but not answered. */
export async function pendingRequests(dir: string): Promise<string[]> {
  return pendingIn(await namesIn(dir));
}

/** requests/'s names, read again only when the folder changed (lib/stat-cache.ts): the rescan looks every 2 s. */
export class RequestsListing {
  private readonly cache = new StatCache(namesIn);

  constructor(private readonly dir: string) {}

  async names(): Promise<readonly string[]> {
    try {
      return (await this.cache.read(this.dir)).value;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return [];
      throw err;
    }
  }
}

/** The requests among the names in requests/, oldest first. */
export function pendingIn(names: readonly string[]): string[] {
  return names.filter((n) => (n.endsWith(REQ) || n.endsWith(REQ + TAKEN)) && !n.startsWith('.')).sort();
}

/**
 * Can the request `name` be taken and answered? Its taken name (`.taken` after it) and its reply's must
 * fit in a file name. baton's own are 36 bytes; a file put in requests/ by hand under a name of 250 bytes or
 * more failed to be taken (ENAMETOOLONG) at every look, and the requests after it were never answered.
 */
export const answerable = (name: string): boolean => Buffer.byteLength(name + TAKEN) <= NAME_MAX;

/** Answer a request: the reply first, then the request goes, so a crash in between never loses the answer. */
export async function answer(dir: string, name: string, reply: Reply): Promise<void> {
  await writeAtomic(replyFile(dir, name), JSON.stringify(reply));
  await unlink(join(dir, name)).catch(() => {});
}

/** Remove replies nobody collected (the asking command gave up) after `maxAgeMs`; `names`: requests/ listed. */
export async function dropStaleReplies(dir: string, maxAgeMs: number, names?: readonly string[]): Promise<void> {
  for (const n of names ?? (await readdir(dir).catch(() => [] as string[]))) {
    if (!n.endsWith(REPLY)) continue;
    const st = await stat(join(dir, n)).catch(() => null);
    if (st && Date.now() - st.mtimeMs > maxAgeMs) await unlink(join(dir, n)).catch(() => {});
  }
}

/**
 * Take request `name` to act on it: renamed, so it can no longer be withdrawn, and read (a file that is not
 * a valid request gets an error reply). Null when it was answered already (killed after the reply, before
 * removing the request: removed now) or withdrawn first (the asking command gave up waiting).
 */
export async function takeOne(
  dir: string,
  name: string,
): Promise<{ name: string; request: Request | { invalid: string } } | null> {
  if (existsSync(replyFile(dir, name))) {
    await unlink(join(dir, name)).catch(() => {});
    return null;
  }
  const taken = name.endsWith(TAKEN) ? name : name + TAKEN;
  if (taken !== name) {
    try {
      await rename(join(dir, name), join(dir, taken));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    }
  }
  let request: Request | { invalid: string };
  try {
    const parsed = RequestSchema.safeParse(JSON.parse(await readFile(join(dir, taken), 'utf8')));
    request = parsed.success ? parsed.data : { invalid: z.prettifyError(parsed.error).replace(/\n/g, ' ') };
  } catch (err) {
    request = { invalid: (err as Error).message };
  }
  return { name: taken, request };
}
