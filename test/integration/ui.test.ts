/**
 * `baton ui`'s HTTP surface without a browser: what a hostile page, a script or a broken client can
 * send it, and the event stream's replay from Last-Event-ID.
 */
import { readFileSync, renameSync } from 'node:fs';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, waitFor } from '../helpers/harness.js';
import { NO_LOG } from '../../src/bus/events.js';
import { pageToken, raw, startUi, type RunningUi } from '../helpers/ui.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function setup(args: string[] = []): Promise<{ p: Project; u: RunningUi; origin: string; token: string }> {
  const p = new Project();
  cleanups.push(() => p.stop());
  const u = await startUi(p, args);
  cleanups.push(() => u.stop());
  const origin = new URL(u.url).origin;
  return { p, u, origin, token: args.includes('--allow-remote') ? '' : await pageToken(u.url) };
}

interface SseEvent {
  event: string;
  id: string | null;
  data: unknown;
}

/** Read a stream's events until it has been quiet for `idleMs` (so a late duplicate would be seen too). */
function readStream(url: string, headers: Record<string, string> = {}, idleMs = 800): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const got: SseEvent[] = [];
    let timer: NodeJS.Timeout;
    const req = httpRequest(url, { headers }, (res) => {
      if (res.statusCode !== 200) {
        req.destroy();
        reject(new Error(`stream answered ${res.statusCode}`));
        return;
      }
      let buf = '';
      const quiet = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          req.destroy();
          resolve(got);
        }, idleMs);
      };
      quiet();
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let end: number;
        while ((end = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const field = (f: string) => new RegExp(`^${f}: ?(.*)$`, 'm').exec(block)?.[1];
          const event = field('event');
          if (!event) continue;
          got.push({ event, id: field('id') ?? null, data: JSON.parse(field('data') ?? 'null') });
          if (event === 'baton' || event === 'reset') quiet();
        }
      });
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

/** A raw request line and headers on a socket, exactly as given (http.request would normalise the path). */
function rawSocket(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
  });
}

describe('baton ui: command line', () => {
  it('refuses a host that is not loopback unless --allow-remote and a token are given', async () => {
    const p = new Project();
    cleanups.push(() => p.stop());
    const open = await p.cli(['ui', '--host', '0.0.0.0', '--port', '0']);
    expect(open.exitCode).toBe(2);
    expect(open.stderr).toContain('not a loopback address');
    const noToken = await p.cli(['ui', '--host', '0.0.0.0', '--port', '0', '--allow-remote']);
    expect(noToken.exitCode).toBe(2);
    expect(noToken.stderr).toContain('--token');
    const badPort = await p.cli(['ui', '--port', 'eighty']);
    expect(badPort.exitCode).toBe(2);
    expect(badPort.stderr).toContain('Usage: baton ui');
    const allWithConfig = await p.cli(['ui', '--all']); // p.cli passes --config
    expect(allWithConfig.exitCode).toBe(2);
    expect(allWithConfig.stderr).toContain('takes no --config');
    const help = await p.cli(['ui', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('--allow-remote');
  });

  it('says which port is taken', async () => {
    const { p, u } = await setup();
    const second = await p.cli(['ui', '--port', String(u.port)]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`port ${u.port}`);
  });
});

describe('baton ui: HTTP', () => {
  it('serves the page with a strict CSP and its own token, and nothing from elsewhere', async () => {
    const { u, token } = await setup();
    const page = await raw(u.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//); // no CDN
    expect((await raw(`${u.url}app.js`)).headers['content-type']).toContain('javascript');
    // One token per run of baton ui: every load of the page gets the same.
    expect(await pageToken(u.url)).toBe(token);
    // SIGTERM with a stream open: it closes the stream and exits 0.
    let sent = '';
    const open = raw(`${u.url}api/stream`, { seen: (body) => (sent = body) }).catch(() => null);
    await waitFor('the stream open', () => sent.includes('event: hello')); // a fixed 300 ms was too short under load
    await u.stop();
    expect(u.proc.exitCode).toBe(0);
    expect((await open)?.body).toContain('event: hello');
  });

  it('turns away forged hosts, other origins, missing tokens and bad bodies with 4xx and a message', async () => {
    const { u, origin, token, p } = await setup();
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      raw(`${origin}${path}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', origin, 'x-baton-token': token, ...headers },
      });
    const good = JSON.stringify({ to: 'claude1', content: 'hi' });

    const rebinding = await raw(`${origin}/api/snapshot`, { headers: { host: `evil.example:${u.port}` } });
    expect(rebinding.status).toBe(421);
    expect(JSON.parse(rebinding.body).error).toContain('loopback');
    for (const host of [
      `evil.example`,
      `127.0.0.1.evil.example:${u.port}`,
      `localhost.evil:${u.port}`,
      `[::2]:${u.port}`,
    ]) {
      expect((await raw(`${origin}/api/snapshot`, { headers: { host } })).status, host).toBe(421);
    }
    expect(await rawSocket(u.port, 'GET /api/snapshot HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 421/); // no Host at all
    // Loopback names on any port (an SSH tunnel or a port mapping) are this server.
    for (const host of [
      `LOCALHOST:${u.port}`,
      `[::1]:${u.port}`,
      '127.0.0.1',
      'localhost:8000',
      `127.1.2.3:${u.port}`,
    ]) {
      expect((await raw(`${origin}/api/snapshot`, { headers: { host } })).status, host).toBe(200);
    }
    expect((await post('/api/send', good, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('/api/send', good, { origin: 'null' })).status).toBe(403);
    expect((await post('/api/send', good, { origin: `http://localhost:${u.port}` })).status).toBe(403); // not the Host it came to
    const noOrigin = await raw(`${origin}/api/send`, {
      method: 'POST',
      body: good,
      headers: { 'content-type': 'application/json', 'x-baton-token': token },
    });
    expect(noOrigin.status).toBe(403);
    const noToken = await post('/api/send', good, { 'x-baton-token': '' });
    expect(noToken.status).toBe(403);
    expect(JSON.parse(noToken.body).error).toContain('X-Baton-Token');
    // One character off (a token that already ended in "x" made this the right token: CI saw 409 once).
    const wrong = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
    expect((await post('/api/send', good, { 'x-baton-token': wrong })).status).toBe(403);
    expect((await post('/api/send', good, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('/api/send', '{"to":')).status).toBe(400);
    const unknown = await post('/api/send', JSON.stringify({ to: 'mallory', content: 'hi' }));
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body).error).toContain('unknown agent "mallory"');
    const extra = await post('/api/send', JSON.stringify({ to: 'claude1', content: 'hi', shell: 'rm -rf /' }));
    expect(extra.status).toBe(400);
    expect(JSON.parse(extra.body).error).toContain('shell');
    expect((await post('/api/send', JSON.stringify({ to: 'claude1', content: '  ' }))).status).toBe(400);
    expect((await post('/api/reject', JSON.stringify({ file: 'x.json', reason: '' }))).status).toBe(400);
    expect((await post('/api/approve', JSON.stringify({ file: 'x.json', all: true }))).status).toBe(400);
    // A dialog's button: the same guards, and a body that names a dialog the page was shown.
    const answer = JSON.stringify({ agent: 'claude1', choice: '1', dialog: '0123456789abcdef' });
    expect((await post('/api/answer', answer, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('/api/answer', answer, { 'x-baton-token': '' })).status).toBe(403);
    const noAgent = await post(
      '/api/answer',
      JSON.stringify({ agent: 'mallory', choice: '1', dialog: '0123456789abcdef' }),
    );
    expect(noAgent.status).toBe(400);
    expect(JSON.parse(noAgent.body).error).toContain('unknown agent "mallory"');
    expect((await post('/api/answer', JSON.stringify({ agent: 'claude1', choice: '1', dialog: 'x' }))).status).toBe(
      400,
    );
    expect(
      (await post('/api/answer', JSON.stringify({ agent: 'claude1', choice: '', dialog: '0123456789abcdef' }))).status,
    ).toBe(400);
    expect(
      (
        await post(
          '/api/answer',
          JSON.stringify({ agent: 'claude1', choice: '1', dialog: '0123456789abcdef', keys: 'y' }),
        )
      ).status,
    ).toBe(400);
    expect((await post('/api/nope', '{}')).status).toBe(404);
    expect((await post('/api/send', JSON.stringify({ to: 'claude1', content: 'x'.repeat(1_200_000) }))).status).toBe(
      413,
    );
    expect((await raw(`${origin}/api/messages?before=-1`)).status).toBe(400);
    expect((await raw(`${origin}/api/messages?limit=100000`)).status).toBe(400);
    expect((await raw(`${origin}/api/messages/..%2F..%2Fstate`)).status).toBe(404);
    for (const path of [
      '/../../etc/passwd',
      '/api/messages/../../state.json',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/web/../package.json',
    ]) {
      const r = await rawSocket(
        u.port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${u.port}\r\nConnection: close\r\n\r\n`,
      );
      expect(r).toMatch(/^HTTP\/1\.1 404/);
      expect(r).not.toContain('root:');
      expect(r).not.toContain('"name": "baton"');
    }
    expect(await rawSocket(u.port, `GET http://[/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 400/,
    );
    expect((await raw(`${origin}/api/messages/msg_0001`)).status).toBe(404);
    expect((await raw(`${origin}/api/snapshot`, { method: 'DELETE' })).status).toBe(405);
    expect((await raw(`${origin}/api/stream`, { headers: { 'last-event-id': 'abc' } })).status).toBe(400);
    expect((await raw(`${origin}/api/stream?from=12`)).status).toBe(400);

    // Malformed HTTP on a raw socket: 400, and the server keeps answering.
    const reply = await new Promise<string>((resolve) => {
      const s = connect(u.port, '127.0.0.1', () => s.write('GARBAGE / HTTP/9.9\r\n\x00\r\n\r\n'));
      let got = '';
      s.on('data', (d) => (got += d.toString()));
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await raw(`${origin}/api/snapshot`)).status).toBe(200);
    // A well-formed control still works after all that (no agent runs: 409 with the reason).
    const ok = await post('/api/end', JSON.stringify({ reason: 'tested' }));
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).ok).toBe(true);
    expect((p.state().finished as { note: string }).note).toBe('tested');
    const noPane = await post('/api/send', good);
    expect(noPane.status).toBe(409);
    expect(JSON.parse(noPane.body).message).toContain('not sent');
  });

  it('a control whose body never finishes arriving is answered 408, and the server goes on', async () => {
    const { u, origin, token } = await setup();
    const head = `POST /api/end HTTP/1.1\r\nHost: 127.0.0.1:${u.port}\r\nOrigin: ${origin}\r\nX-Baton-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"rea`;
    const reply = await rawSocket(u.port, head);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(reply).toContain('the body took longer than 10 s');
    expect((await raw(`${origin}/api/snapshot`)).status).toBe(200);
  });

  it('with --allow-remote, asks for the access token on every request and sets a cookie', async () => {
    const token = 'a-long-access-token-0123456789';
    const { u, origin } = await setup(['--allow-remote', '--token', token, '--host', '127.0.0.1']);
    expect(u.url).toContain(`?token=${token}`);
    expect((await raw(`${origin}/`)).status).toBe(401);
    expect((await raw(`${origin}/api/snapshot`)).status).toBe(401);
    expect((await raw(`${origin}/?token=wrong-wrong-wrong-wrong`)).status).toBe(401);
    const page = await raw(u.url);
    expect(page.status).toBe(200);
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toBe(`baton_token_${u.port}=${token}`);
    expect(String(page.headers['set-cookie'])).toContain('HttpOnly');
    expect((await raw(`${origin}/api/snapshot`, { headers: { cookie } })).status).toBe(200);
    expect(
      (await raw(`${origin}/api/snapshot`, { headers: { cookie: `baton_token_${u.port}=%E0%A4%A` } })).status,
    ).toBe(401);
  });

  it('with --token (or BATON_UI_TOKEN) on loopback, asks for it too; without, the variable alone turns it on', async () => {
    const token = 'shared-machine-token-0123456789';
    const p = new Project();
    cleanups.push(() => p.stop());
    const u = await startUi(p, [], 0, { BATON_UI_TOKEN: token });
    cleanups.push(() => u.stop());
    expect(u.url).toContain(`?token=${token}`);
    const origin = new URL(u.url).origin;
    expect((await raw(`${origin}/api/snapshot`)).status).toBe(401);
    expect((await raw(`${origin}/api/snapshot?token=${token}`)).status).toBe(200);
    const short = await p.cli(['ui', '--port', '0', '--token', 'short']);
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('at least 16 characters');
  });

  it('replays exactly the events after Last-Event-ID, with the message each delivery is about', async () => {
    const { p, origin } = await setup();
    await p.recorder('claude1');
    await p.recorder('claude2');
    await p.startDaemon();
    for (let i = 1; i <= 4; i++) {
      p.send(i % 2 ? 'c1_to_c2' : 'c2_to_c1', `${i}.json`, { content: `message ${i}` });
      await waitFor(`msg ${i}`, () => p.events().some((e) => e.event === 'delivered' && e.id === `msg_000${i}`));
    }
    // The cursor just past the line that delivered msg_0002: this log's generation, and a byte offset. The
    // feed learns of a log made after it started at its next look (fs.watch, or a 250 ms poll); a snapshot
    // taken before that still says "no log yet" (gen 0), and a cursor pairing that with an offset into this
    // log is answered, rightly, with a reset (seen once in CI when the four deliveries were quick).
    let gen = NO_LOG;
    await waitFor(
      'the feed on this log',
      async () =>
        (gen = (JSON.parse((await raw(`${origin}/api/snapshot`)).body) as { cursor: string }).cursor.split(':')[0]!) !==
        NO_LOG,
    );
    const lines = readFileSync(p.path('events.jsonl'), 'utf8').split('\n').filter(Boolean);
    const k = lines.findIndex((l) => JSON.parse(l).event === 'delivered' && JSON.parse(l).id === 'msg_0002');
    const offset = Buffer.byteLength(`${lines.slice(0, k + 1).join('\n')}\n`);
    const after = lines.slice(k + 1);
    // A loaded machine may start the replay later than the default idle window: wait longer for its first bytes.
    const all = await readStream(`${origin}/api/stream`, { 'last-event-id': `${gen}:${offset}` }, 8000);
    const events = all.filter((e) => e.event === 'baton');
    expect(
      events.map((e) => (e.data as { e: { event: string } }).e.event),
      `the stream sent: ${all.map((e) => `${e.event} ${JSON.stringify(e.data).slice(0, 120)}`).join(' | ')}`,
    ).toEqual(after.map((l) => JSON.parse(l).event));
    const delivered = events.filter((e) => (e.data as { e: { event: string } }).e.event === 'delivered');
    expect(delivered.map((e) => (e.data as { bubble: { id: string; content: string } }).bubble)).toMatchObject([
      { id: 'msg_0003', content: 'message 3' },
      { id: 'msg_0004', content: 'message 4' },
    ]);
    // Each id is this log's generation and the offset just past its line, increasing to the end.
    const offsets = events.map((e) => Number(e.id!.split(':')[1]));
    expect(events.every((e) => e.id!.startsWith(`${gen}:`))).toBe(true);
    expect(offsets.at(-1)).toBe(Buffer.byteLength(`${lines.join('\n')}\n`));
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    // Up to date: nothing; a cursor from another log: reset, never a replay from a wrong offset.
    expect(
      (await readStream(`${origin}/api/stream`, { 'last-event-id': `${gen}:${offsets.at(-1)}` })).filter(
        (e) => e.event === 'baton' || e.event === 'reset',
      ),
    ).toEqual([]);
    const stale = await readStream(`${origin}/api/stream`, { 'last-event-id': `zz-1:${offset}` });
    expect(stale.filter((e) => e.event === 'baton')).toEqual([]);
    expect(stale.filter((e) => e.event === 'reset')).toHaveLength(1);
  });
});

// 256 slow-header connections, or 300 idle event streams, once kept every legitimate request out for 60 s.
describe('baton ui: a local flood', () => {
  it('keeps answering while 256 slow-header connections and 300 event streams nobody reads are held open', async () => {
    const { u, origin, token } = await setup();
    const { hostname, port } = new URL(u.url);
    const sockets: Array<import('node:net').Socket> = [];
    cleanups.push(async () => {
      for (const s of sockets) s.destroy();
    });
    const open = (first: string) =>
      new Promise<void>((resolve) => {
        const s = connect(Number(port), hostname, () => {
          s.write(first);
          resolve();
        });
        s.on('error', () => resolve()); // refused or cut off: the server's choice
        s.pause(); // never read a byte
        sockets.push(s);
      });
    // Slow headers: a request line, then one header byte every second, never finishing.
    await Promise.all(
      Array.from({ length: 256 }, () => open(`GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Slow: `)),
    );
    const drip = setInterval(() => {
      for (const s of sockets.slice(0, 256)) if (s.writable) s.write('a');
    }, 1000);
    cleanups.push(async () => clearInterval(drip));
    // Event streams opened and never read.
    await Promise.all(
      Array.from({ length: 300 }, () => open(`GET /api/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`)),
    );
    await new Promise((r) => setTimeout(r, 1500));

    // A person's requests meanwhile: the page, a snapshot, a control. Each must answer (10 s is the failure
    // signal), each on a new connection (a pooled one opened before the flood would prove nothing).
    const fresh = (url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
      new Promise<{ status: number }>((resolve) => {
        const req = httpRequest(
          url,
          { method: opts.method ?? 'GET', headers: opts.headers ?? {}, agent: false },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
          },
        );
        req.on('error', () => resolve({ status: 0 }));
        req.end(opts.body);
      });
    const timed = async (what: () => Promise<{ status: number }>) => {
      const t0 = performance.now();
      const r = await Promise.race([
        what(),
        new Promise<{ status: number }>((resolve) => setTimeout(() => resolve({ status: 0 }), 10_000)),
      ]);
      return { status: r.status, ms: performance.now() - t0 };
    };
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(await timed(() => fresh(u.url)));
      results.push(await timed(() => fresh(`${origin}/api/snapshot`)));
      results.push(
        await timed(() =>
          fresh(`${origin}/api/pause`, {
            method: 'POST',
            headers: { origin, 'x-baton-token': token, 'content-type': 'application/json' },
            body: '{}',
          }),
        ),
      );
    }
    const statuses = results.map((r) => r.status);
    const ms = results.map((r) => r.ms).sort((a, b) => a - b);
    console.log(
      `under the flood: ${statuses.filter((x) => x === 200).length}/${statuses.length} answered 200, p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms`,
    );
    expect(statuses).toEqual(Array(15).fill(200));
  }, 60_000);
});

describe('baton ui: another conversation in the same folder', () => {
  it('reads the archive afresh when events.jsonl is replaced (baton up --fresh moves a conversation away)', async () => {
    const { p, origin } = await setup();
    await p.recorder('claude1');
    await p.recorder('claude2');
    const first = await p.startDaemon();
    for (let i = 1; i <= 3; i++) {
      p.send(i % 2 ? 'c1_to_c2' : 'c2_to_c1', `${i}.json`, { content: `old ${i}` });
      await waitFor(`old ${i}`, () => p.events().some((e) => e.event === 'delivered' && e.id === `msg_000${i}`));
    }
    await waitFor(
      'the dashboard to see 3',
      async () => JSON.parse((await raw(`${origin}/api/snapshot`)).body).messages.total === 3,
    );
    const oldCursor = (JSON.parse((await raw(`${origin}/api/snapshot`)).body) as { cursor: string }).cursor;
    const watching = readStream(`${origin}/api/stream?from=${encodeURIComponent(oldCursor)}`, {}, 3000);
    first.proc.kill('SIGTERM');
    await first.proc;
    renameSync(p.messages, `${p.messages}-old`);
    await p.startDaemon();
    p.send('c1_to_c2', 'new.json', { content: 'new 1' });
    await waitFor('new msg_0001', () => p.events().some((e) => e.event === 'delivered' && e.id === 'msg_0001'));
    const snap = await waitFor('the dashboard to start over', async () => {
      const s = JSON.parse((await raw(`${origin}/api/snapshot`)).body) as {
        messages: { total: number; items: Array<{ id: string; content: string }> };
      };
      return s.messages.total === 1 ? s : null;
    });
    expect(snap.messages.items).toMatchObject([{ id: 'msg_0001', content: 'new 1' }]);
    // The open stream was told to reload; a tab coming back with the old log's cursor is told the same.
    expect((await watching).filter((e) => e.event === 'reset').length).toBeGreaterThanOrEqual(1);
    const back = await readStream(`${origin}/api/stream`, { 'last-event-id': oldCursor });
    expect(back.filter((e) => e.event === 'reset')).toHaveLength(1);
    expect(back.filter((e) => e.event === 'baton')).toEqual([]);
  });
});
