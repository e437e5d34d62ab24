/**
 * Notifications (docs/protocol.md §12) from a real daemon on a private tmux server to receivers this test runs
 * on 127.0.0.1: a conversation that finishes and one that stalls reach a signed webhook, ntfy's own JSON and a
 * command's stdin; a webhook that answers 500 is retried; one that never answers delays no delivery.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, waitFor } from '../helpers/harness.js';
import { startUi } from '../helpers/ui.js';
import { recorderConversation } from '../helpers/machine-fleet.js';

interface Got {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP server on 127.0.0.1 that records each request; `answer` says what to do with the n-th (0-based). */
async function receiver(answer: (n: number) => number | 'hang' = () => 200) {
  const got: Got[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      const a = answer(got.length);
      got.push({ path: req.url ?? '', headers: req.headers, body });
      if (a === 'hang') return; // never answers
      res.writeHead(a).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, url, close: () => new Promise<void>((r) => server.closeAllConnections() ?? server.close(() => r())) };
}

let p: Project | undefined;
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await p?.stop();
  p = undefined;
  for (const s of servers.splice(0)) await s.close();
});

const SECRET = 'a shared secret';
const events = (r: { got: Got[] }) => r.got.map((g) => JSON.parse(g.body) as Record<string, unknown>);

describe('the dashboard link', () => {
  it("ntfy's click and the event's url lead to the project's dashboard while baton ui runs, without its token", async () => {
    const ntfy = await receiver();
    servers.push(ntfy);
    p = new Project();
    p.writeConfig({ ...JSON.parse(readFileSync(p.configFile, 'utf8')), notify: [{ ntfy: `${ntfy.url}/t` }] });
    expect((await p.cli(['notify', '--test'])).exitCode).toBe(0);
    expect(JSON.parse(ntfy.got[0]!.body)).not.toHaveProperty('click'); // no dashboard runs
    const ui = await startUi(p, [], 0, { BATON_UI_TOKEN: 'a-token-of-sixteen-chars' });
    try {
      expect((await p.cli(['notify', '--test'])).exitCode).toBe(0);
      expect(JSON.parse(ntfy.got[1]!.body)).toMatchObject({ click: `http://127.0.0.1:${ui.port}/` });
    } finally {
      await ui.stop();
    }
    expect((await p.cli(['notify', '--test'])).exitCode).toBe(0);
    expect(JSON.parse(ntfy.got[2]!.body)).not.toHaveProperty('click'); // it stopped
  });

  it("served by the machine's daemon: the link is the conversation's page on the machine's dashboard", async () => {
    const ntfy = await receiver();
    servers.push(ntfy);
    const made: Project[] = [];
    const c = await recorderConversation('nl', made);
    p = c.p;
    p.writeConfig({
      ...JSON.parse(readFileSync(p.configFile, 'utf8')),
      turns: { max_turns: 1 },
      notify: [{ ntfy: `${ntfy.url}/t` }],
    });
    const up = await p.cli(['up']);
    expect(up.exitCode, up.stderr + up.stdout).toBe(0);
    const ui = await startUi(p, ['--all']);
    try {
      p.send('c1_to_c2', '1.json', { content: 'one' });
      await waitFor('finished', () => p!.state().finished);
      const [n] = await waitFor('ntfy', () => (ntfy.got.length ? ntfy.got : null));
      const click = (JSON.parse(n!.body) as { click: string }).click;
      expect(click).toMatch(new RegExp(`^${ui.url}c/[0-9a-f]{12}/$`));
      const page = await fetch(click);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    } finally {
      await ui.stop();
    }
  });
});

describe('notifications from a running daemon', () => {
  it('finished: a signed webhook, ntfy JSON and a command get one event each; a 500 is retried; a hanging sink delays nothing', async () => {
    const hook = await receiver();
    const ntfy = await receiver();
    const flaky = await receiver((n) => (n === 0 ? 500 : 200));
    const hangs = await receiver(() => 'hang');
    servers.push(hook, ntfy, flaky, hangs);
    p = new Project({ turns: { max_turns: 2 } });
    const out = p.path('..', 'command-got.json');
    p.writeConfig({
      ...JSON.parse(readFileSync(p.configFile, 'utf8')),
      turns: { max_turns: 2 },
      notify: [
        { webhook: `${hangs.url}/never`, timeout_s: 30, cooldown_s: 0, name: 'hangs' },
        { webhook: `${hook.url}/hook`, secret: SECRET, events: ['finished', 'stalled'] },
        { ntfy: `${ntfy.url}/baton-test`, events: ['finished'] },
        { webhook: `${flaky.url}/flaky`, events: ['finished'] },
        { command: ['sh', '-c', `cat > '${out}'`], events: ['finished'], name: 'file' },
      ],
    });
    await p.recorder('claude1');
    await p.recorder('claude2');
    await p.startDaemon();
    p.send('c1_to_c2', '1.json', { content: 'one' });
    p.send('c2_to_c1', '2.json', { content: 'two' });
    await waitFor('finished', () => p!.state().finished);

    const [got] = await waitFor('the webhook', () => (hook.got.length ? hook.got : null));
    const sig = createHmac('sha256', SECRET).update(got!.body).digest('hex');
    expect(got!.headers['x-baton-signature']).toBe(`sha256=${sig}`);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(got!.body)).toMatchObject({
      event: 'finished',
      agent: null,
      count: 1,
      details: { reason: 'max_turns' },
      title: expect.stringContaining('finished'),
    });
    const [n] = await waitFor('ntfy', () => (ntfy.got.length ? ntfy.got : null));
    expect(n!.path).toBe('/');
    expect(JSON.parse(n!.body)).toMatchObject({ topic: 'baton-test', priority: 3, tags: ['checkered_flag'] });
    expect(n!.headers['x-baton-signature']).toBeUndefined();
    await waitFor('the command', () => existsSync(out) && readFileSync(out, 'utf8').length > 0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ event: 'finished' });
    // Retried after the 500 (backoff: 1 s), with the same body.
    await waitFor('the retry', () => flaky.got.length >= 2, 10_000);
    expect(flaky.got[1]!.body).toBe(flaky.got[0]!.body);

    // The hanging sink holds its request open; the conversation goes on at its usual pace meanwhile.
    expect(hangs.got.length).toBe(1);
    expect((await p.cli(['resume'])).exitCode).toBe(0);
    await waitFor('resumed', () => !p!.state().finished);
    const t0 = performance.now();
    p.send('c1_to_c2', '3.json', { content: 'three' });
    await waitFor('3 delivered', () => p!.archive()[2]?.delivered_at);
    const ms = performance.now() - t0;
    console.log(`delivery with a hanging sink: ${Math.round(ms)} ms (settle_ms 300)`);
    expect(ms).toBeLessThan(3000);

    // status shows each sink's last success and failure.
    await waitFor('the record', async () => {
      const s = JSON.parse((await p!.cli(['status', '--json'])).stdout) as { notify: Array<Record<string, unknown>> };
      return s.notify[1]?.last_success && s.notify[3]?.last_failure && s.notify[3]?.last_success;
    });
    const s = JSON.parse((await p.cli(['status', '--json'])).stdout) as { notify: Array<Record<string, unknown>> };
    expect(s.notify.map((x) => [x.label, x.kind, x.target])).toEqual([
      ['hangs', 'webhook', `${hangs.url}/…`],
      ['webhook 2', 'webhook', `${hook.url}/…`],
      ['ntfy 3', 'ntfy', `${ntfy.url}/…`],
      ['webhook 4', 'webhook', `${flaky.url}/…`],
      ['file', 'command', 'sh'],
    ]);
    expect(s.notify[3]).toMatchObject({ last_failure: { event: 'finished', error: 'HTTP 500' }, sent: 1 });
    const text = (await p.cli(['status'])).stdout;
    expect(text).toMatch(/notify\s+hangs → http:\/\/127\.0\.0\.1:\d+\/…: nothing sent yet/);
    expect(text).toMatch(/webhook 4 → .*: last sent .* \(finished\); last failed .* \(finished: HTTP 500\)/);
  });

  it('stalled: the silent agent is named; `notify --test` reports each sink and fails when one does; a rejected config is an error', async () => {
    const hook = await receiver();
    servers.push(hook);
    const gone = await receiver();
    await gone.close(); // its port now refuses
    p = new Project();
    p.writeConfig({
      ...JSON.parse(readFileSync(p.configFile, 'utf8')),
      turns: { timeout_s: 1, max_nudges: 0 },
      notify: [
        { webhook: `${hook.url}/hook`, secret: SECRET },
        { webhook: `${gone.url}/refused`, name: 'nobody', timeout_s: 2 },
      ],
    });
    await p.recorder('claude1');
    await p.recorder('claude2');
    await p.startDaemon();
    p.send('c1_to_c2', '1.json', { content: 'one' });
    await waitFor('stalled', () => p!.state().stalled);
    await waitFor('the webhook', () => events(hook).some((e) => e.event === 'stalled'));
    expect(events(hook).find((e) => e.event === 'stalled')).toMatchObject({ agent: 'claude2', count: 1 });

    const before = hook.got.length;
    const t = await p.cli(['notify', '--test']);
    expect(t.exitCode).toBe(1);
    expect(t.stdout).toMatch(/^sent {4}webhook 1 \(http:\/\/127\.0\.0\.1:\d+\/…\) {2}\d+ ms$/m);
    expect(t.stdout).toMatch(/^FAILED {2}nobody \(http:\/\/127\.0\.0\.1:\d+\/…\): ECONNREFUSED/m);
    expect(hook.got.length).toBe(before + 1);
    const sample = hook.got.at(-1)!;
    expect(JSON.parse(sample.body)).toMatchObject({ test: true });
    expect(sample.headers['x-baton-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(sample.body).digest('hex')}`,
    );

    // config.json saved with a typo while it runs: the daemon keeps its last good config, and says so.
    writeFileSync(p.configFile, '{"turns": {"polcy": "x"}}');
    await waitFor('the error', () => events(hook).some((e) => e.event === 'error'), 20_000);
    expect(events(hook).find((e) => e.event === 'error')).toMatchObject({
      error: 'config_rejected',
      details: { error: expect.stringContaining('turns.polcy') },
    });
  });
});
