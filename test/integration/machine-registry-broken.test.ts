/**
 * A machine registry broken by hand (a trailing comma in conversations.json) and one `baton up` in another
 * project: `up` refuses before it starts anything (exit 1, naming the file and the fix), the file is left
 * as it was, the conversation the daemon served goes on being served and typed into, and `ls` and `status`
 * say what is wrong. It used to be rewritten with the new conversation alone: the other's messages were
 * typed zero times, its `status` said "daemon not running", `ls` no longer listed it — and `up` said nothing.
 */
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, type Project, waitFor } from '../helpers/harness.js';
import { machinePid, recorderConversation, typedIn } from '../helpers/machine-fleet.js';

const made: Project[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.stop();
});

type Status = { daemon: { running: boolean; pid: number | null }; registry_problem: string | null };
const statusOf = async (p: Project) => JSON.parse((await p.cli(['status', '--json'])).stdout) as Status;

async function ls(p: Project) {
  const r = await execa('node', [CLI, 'ls', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { problem: string | null; conversations: Array<{ folder: string; run: string }> };
}

describe('a machine registry broken by hand', () => {
  it('up elsewhere refuses and writes nothing; the conversation served goes on; ls and status say so', async () => {
    const a = await recorderConversation('ba', made);
    const b = await recorderConversation('bb', made, a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    await waitFor('A served', async () => (await statusOf(a.p)).daemon.pid === pid);

    const file = join(a.p.env.XDG_STATE_HOME!, 'baton', 'conversations.json');
    const good = readFileSync(file, 'utf8');
    const broken = good.replace(/\}\n {2}\]/, '},\n  ]');
    expect(broken).not.toBe(good);
    writeFileSync(file, broken);

    const upB = await b.p.cli(['up']);
    expect(upB.exitCode, upB.stdout + upB.stderr).toBe(1);
    expect(upB.stderr).toContain(`${file} does not parse`);
    expect(upB.stderr).toMatch(/fix it by hand/);
    expect(readFileSync(file, 'utf8')).toBe(broken); // never written from a read that failed
    expect((await statusOf(b.p)).daemon.running).toBe(false);

    // A is still served by the same daemon and typed into.
    a.p.send('c1_to_c2', 'a1.json', { content: 'A beside a broken registry' });
    await waitFor('A delivered', () => typedIn(a.logs.claude2, 'A beside a broken registry'));
    const s = await statusOf(a.p);
    expect(s.daemon.pid).toBe(pid);
    expect(s.registry_problem).toContain(`${file} does not parse`);
    expect((await a.p.cli(['status'])).stdout).toMatch(/^registry +.*does not parse.*refuse until it is fixed/m);
    const listed = await ls(a.p);
    expect(listed.problem).toContain('does not parse');
    expect(listed.conversations.map((c) => [c.folder, c.run])).toEqual([[a.p.dir, 'running']]);
    // `down` cannot take A back from a list it cannot read: it refuses and the daemon serves on.
    const downA = await a.p.cli(['down']);
    expect(downA.exitCode, downA.stdout + downA.stderr).toBe(1);
    expect(downA.stderr).toContain(`${file} does not parse`);
    expect((await statusOf(a.p)).daemon.pid).toBe(pid);

    // Fixed by hand: B's `up` goes through and both are served.
    writeFileSync(file, good);
    const again = await b.p.cli(['up']);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    await waitFor('B served', async () => (await statusOf(b.p)).daemon.pid === pid);
    expect((await ls(a.p)).conversations.map((c) => c.folder)).toEqual([a.p.dir, b.p.dir]);
    a.p.send('c2_to_c1', 'a2.json', { content: 'A after the fix' });
    await waitFor('A still delivered', () => typedIn(a.logs.claude1, 'A after the fix'));
  }, 120_000);
});
