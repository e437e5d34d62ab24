/**
 * `baton ui` serving many conversations, over plain HTTP: the overview's listing, each registered
 * conversation under /c/<id>/ with the same guard rails as `/` (loopback Host, the access token, a control's
 * Origin and page token), a conversation let go of when it leaves the registry, and the overview at `/`
 * outside any project.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { entryOf, keyOf, register, stateDir, unregister } from '../../src/app/machine/registry.js';
import { loadConfig } from '../../src/config/load.js';
import { conversationId } from '../../src/ui/conversation-paths.js';
import { CLI, Project, waitFor } from '../helpers/harness.js';
import { pageToken, raw, startUi, type RunningUi } from '../helpers/ui.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

function project(state?: Project): Project {
  const p = new Project();
  if (state) p.env.XDG_STATE_HOME = state.env.XDG_STATE_HOME!;
  cleanups.push(() => p.stop());
  return p;
}

/** Put `p` in its machine registry as `baton up` does (no daemon needed to be listed and shown); its id. */
async function registered(p: Project): Promise<string> {
  const entry = entryOf(loadConfig({ file: p.configFile, baseDir: p.dir }), null);
  await register(stateDir(p.env), entry);
  return conversationId(keyOf(entry));
}

async function ui(p: Project, args: string[] = []): Promise<{ u: RunningUi; origin: string }> {
  const u = await startUi(p, args);
  cleanups.push(() => u.stop());
  return { u, origin: new URL(u.url).origin };
}

const finished = (p: Project) => (existsSync(p.path('state.json')) ? (p.state().finished ?? null) : null);

/** The status of a stream's answer, and whether the server ended it afterwards (read until it closes). */
function openStream(url: string): Promise<{ status: number; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, ended: new Promise((done) => res.on('close', () => done())) });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('baton ui: every conversation of the machine', () => {
  it('lists the registry, serves each conversation under /c/<id>/, guarded as /, and lets go of one taken back', async () => {
    const p = project();
    const q = project(p);
    const pid = await registered(p);
    const qid = await registered(q);
    const { u, origin } = await ui(p);
    const token = await pageToken(u.url);

    const listing = JSON.parse((await raw(`${origin}/all/api/listing`)).body) as {
      home: string | null;
      conversations: Array<{ id: string; path: string; folder: string; run: string }>;
    };
    expect(listing.home).toBe(pid);
    expect(listing.conversations.map((c) => [c.folder, c.id, c.path, c.run])).toEqual([
      [p.dir, pid, `/c/${pid}/`, 'stopped'],
      [q.dir, qid, `/c/${qid}/`, 'stopped'],
    ]);
    const page = await raw(`${origin}/all`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('/overview.js');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");

    // Q's view under its prefix: its page, its snapshot; P's own conversation stays at / (and at its /c/ too).
    const snap = (path: string) => raw(`${origin}${path}api/snapshot`).then((r) => JSON.parse(r.body));
    expect((await snap(`/c/${qid}/`)).conversation.message_dir).toBe(q.messages);
    expect((await snap('/')).conversation.message_dir).toBe(p.messages);
    expect((await snap(`/c/${pid}/`)).conversation.message_dir).toBe(p.messages);
    expect((await raw(`${origin}/c/${qid}/`)).body).toContain(`content="${token}"`);
    const bare = await raw(`${origin}/c/${qid}`);
    expect([bare.status, bare.headers.location]).toEqual([308, `/c/${qid}/`]);
    expect((await raw(`${origin}/c/0123456789ab/api/snapshot`)).status).toBe(404);

    // A DNS-rebinding page reaches neither the overview nor any conversation.
    for (const path of [`/c/${qid}/`, `/c/${qid}/api/snapshot`, `/c/${qid}/api/stream`, '/all', '/all/api/stream']) {
      const r = await raw(`${origin}${path}`, { headers: { host: `evil.example:${u.port}` } });
      expect(r.status, path).toBe(421);
    }

    // Another site's POST to Q's controls: refused, and Q unchanged; the page's own POST ends Q, not P.
    const end = (headers: Record<string, string>) =>
      raw(`${origin}/c/${qid}/api/end`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'from the overview' }),
        headers: { 'content-type': 'application/json', ...headers },
      });
    expect((await end({ origin: 'http://evil.example', 'x-baton-token': token })).status).toBe(403);
    expect((await end({ 'x-baton-token': token })).status).toBe(403);
    expect((await end({ origin, 'x-baton-token': 'wrong' })).status).toBe(403);
    expect((await end({ origin, 'x-baton-token': token, host: `evil.example:${u.port}` })).status).toBe(421);
    expect(finished(q)).toBeNull();
    const ok = await end({ origin, 'x-baton-token': token });
    expect(ok.status, ok.body).toBe(200);
    expect((q.state().finished as { note: string }).note).toBe('from the overview');
    expect(finished(p)).toBeNull();
    await waitFor('the overview sees Q finished', async () => {
      const l = JSON.parse((await raw(`${origin}/all/api/listing`)).body) as { conversations: Array<{ run: string }> };
      return l.conversations[1]?.run === 'finished';
    });

    // Q taken back (baton down): its open stream is ended and its view is gone; P's stays.
    const stream = await openStream(`${origin}/c/${qid}/api/stream`);
    expect(stream.status).toBe(200);
    await unregister(stateDir(q.env), keyOf(entryOf(loadConfig({ file: q.configFile, baseDir: q.dir }), null)));
    await Promise.race([
      stream.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('Q stream not ended')), 10_000)),
    ]);
    expect((await raw(`${origin}/c/${qid}/api/snapshot`)).status).toBe(404);
    expect((await raw(`${origin}/api/snapshot`)).status).toBe(200);
  });

  it('asks for the access token on the overview and every conversation under /c/', async () => {
    const p = project();
    const q = project(p);
    await registered(p);
    const qid = await registered(q);
    const secret = 'a-token-of-twenty-chars';
    const { origin } = await ui(p, ['--token', secret]);
    for (const path of ['/all', '/all/api/listing', `/c/${qid}/`, `/c/${qid}/api/snapshot`, `/c/${qid}/api/stream`])
      expect((await raw(`${origin}${path}`)).status, path).toBe(401);
    const first = await raw(`${origin}/all?token=${secret}`);
    expect(first.status).toBe(200);
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    expect((await raw(`${origin}/c/${qid}/api/snapshot`, { headers: { cookie } })).status).toBe(200);
  });

  it('outside any project (or with --all) shows the overview at /', async () => {
    const p = project();
    const pid = await registered(p);
    const proc = execa('node', [CLI, 'ui', '--port', '0', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
    cleanups.push(async () => {
      proc.kill('SIGTERM');
      await proc;
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const line = await waitFor('baton ui to print its address', () => (out.includes('\n') ? out : null));
    const { url } = JSON.parse(line) as { url: string };
    const root = await raw(url);
    expect(root.status).toBe(200);
    expect(root.body).toContain('/overview.js');
    expect((await raw(`${url}api/snapshot`)).status).toBe(404);
    expect((await raw(`${url}c/${pid}/api/snapshot`)).status).toBe(200);
    // Inside the project, --all does the same.
    const { origin } = await ui(p, ['--all']);
    expect((await raw(`${origin}/`)).body).toContain('/overview.js');
    expect(JSON.parse((await raw(`${origin}/all/api/listing`)).body).home).toBeNull();
  });
});
