/**
 * config.json edited while a PostgreSQL conversation runs (docs/protocol.md §2, §10): each machine's daemon
 * reads its own file; how text is typed applies at once, while the turn rules — which every machine must share —
 * wait for a restart, and `status` shows the max_turns the daemon runs and says the file differs.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

interface Running {
  max_turns: number;
  running_config: { turns: { max_turns: number }; file: { state: string; keys?: string[] } } | null;
}

describe('a config reloaded on the PostgreSQL bus', () => {
  it('delivery applies live; max_turns, shared by every machine, is said to need a restart', async () => {
    const both = {
      claude1: { kind: 'generic', command: 'x', host: 'alpha' },
      claude2: { kind: 'generic', command: 'x', host: 'alpha' },
    };
    const conf = (extra: Record<string, unknown>) =>
      machinesConfig(server.url, `reload-${process.pid}`, { agents: both, turns: { max_turns: 10 }, ...extra });
    const alpha = machine('alpha', conf({}));
    await alpha.recorder('claude1');
    await alpha.recorder('claude2');
    await alpha.daemon();
    const status = async () => JSON.parse((await alpha.cli(['status', '--json'])).stdout) as Running;

    alpha.writeConfig(conf({ delivery: { enter_delay_ms: 5 } }));
    await waitFor(
      'delivery applied',
      async () =>
        (await status()).running_config?.file.state === 'same' &&
        alpha.output.includes('applied delivery.enter_delay_ms'),
    );

    alpha.writeConfig(conf({ delivery: { enter_delay_ms: 5 }, turns: { max_turns: 3 } }));
    const s = await waitFor('restart said', async () => {
      const now = await status();
      return now.running_config?.file.state === 'restart' ? now : null;
    });
    expect(s.running_config?.file.keys).toEqual(['turns.max_turns']);
    expect(s.max_turns).toBe(10); // what the daemon runs, not the file
    expect(alpha.output).toContain('restart to apply turns.max_turns');
    expect((await alpha.cli(['status'])).stdout).toContain('! changed: restart to apply turns.max_turns');
  }, 90_000);
});
