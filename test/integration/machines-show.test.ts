/**
 * `baton show` where it is told to run: in a shell-kind agent's pane on the PostgreSQL bus. That pane gets
 * only a line naming its message (`read it with: baton show msg_0001`) and never the database's password
 * (docs/trust.md), so the hint once failed in the very pane it was typed into ("this shell has no URL for the
 * database"). The machine's daemon now keeps a copy of what it names to its panes (daemon/shown.ts), and the
 * hint, run in that pane, prints the message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

describe('baton show in an agent pane with no database access (PostgreSQL bus)', () => {
  it("a shell agent's pane reads the message it was only named, with the command it was given", async () => {
    const conv = `show-${process.pid}`;
    const config = machinesConfig(server.url, conv, {
      agents: {
        claude1: { kind: 'generic', command: 'x', host: 'alpha' },
        claude2: { kind: 'shell', command: 'bash --norc --noprofile -i', host: 'beta' },
      },
    });
    // The URL reaches `up` and the daemon from the shell, never the config file (which every pane reads).
    delete (config.bus as { url?: string }).url;
    const beta = machine('beta', config);
    beta.env.BATON_BUS_URL = server.url;
    const up = await beta.cli(['up']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const pane = async () => (await beta.tmux(['capture-pane', '-p', '-J', '-t', '=claude2:'])).stdout;
    // The pane has no database: its environment holds no URL (baton up gives it none).
    await beta.tmux(['send-keys', '-t', '=claude2:', '-l', 'echo "url=[$BATON_BUS_URL]"']);
    await beta.tmux(['send-keys', '-t', '=claude2:', 'Enter']);
    await waitFor('the pane answered', async () => (await pane()).includes('url=[]'));

    // From a person's shell on beta, for alpha's agent: straight into the database.
    const content = 'line one; rm -rf "$HOME" `date`\nline two — é\n';
    const posted = await beta.cli(['post', '--as', 'claude1', content]);
    expect(posted.exitCode, posted.stderr).toBe(0);
    await waitFor('the inert line in the pane', async () => (await pane()).includes('baton show msg_0001'), 20_000);
    expect(await pane()).not.toContain('line two');

    // The hint, run where it was typed.
    const out = join(beta.dir, 'shown.txt');
    await beta.tmux(['send-keys', '-t', '=claude2:', '-l', `baton show msg_0001 > ${out} 2>&1; echo "done=$?"`]);
    await beta.tmux(['send-keys', '-t', '=claude2:', 'Enter']);
    await waitFor('baton show ran', async () => /done=\d/.test(await pane()));
    const shown = readFileSync(out, 'utf8');
    expect(await pane(), shown).toContain('done=0');
    expect(shown.split('\n')[0]).toMatch(/^msg_0001 {2}claude1 → claude2 {2}/);
    expect(shown.slice(shown.indexOf('\n') + 1)).toBe(content);

    // What it was not told of it cannot read (nor any other conversation): said, with why.
    await beta.tmux(['send-keys', '-t', '=claude2:', '-l', 'baton show msg_0002; echo "done=$?"']);
    await beta.tmux(['send-keys', '-t', '=claude2:', 'Enter']);
    await waitFor('the second show ran', async () => (await pane()).includes('done=1'));
    expect(await pane()).toContain("msg_0002 is not among this machine's copies");
    expect((await beta.cli(['down'])).exitCode).toBe(0);
  });
});
