import { UsageError, noPositionals, type CommandSpec } from '../command.js';

export const notify: CommandSpec = {
  usage: 'notify --test [--json]',
  summary: "send a sample notification to every sink of config.json's notify and say how each did",
  options: { test: { type: 'boolean' }, json: { type: 'boolean' } },
  examples: ['baton notify --test', 'baton notify --test --json'],
  help: `
Sends one sample event (marked "test": true) to every sink in config.json's notify — webhook, ntfy,
command — at once, one attempt each within its timeout_s, and prints one line per sink: sent, or why
not (HTTP 500, no answer within 10 s, exit status 1 …). Exits 1 when any sink failed, 2 when the
config has no notify sinks. No daemon is needed; nothing of the conversation changes.

  --test   send the sample (the only thing this command does)
  --json   print [{label, kind, target, ok, error, ms}] instead of lines`,
  async run(inv) {
    noPositionals(inv);
    if (!inv.values.test) throw new UsageError('notify takes --test (send a sample to every sink)');
    const { testSinks } = await import('../../app/notify.js');
    const { dashboardUrl } = await import('../../config/dashboard-record.js');
    const config = (await import('../inputs.js')).configFrom(inv);
    if (!config.notify.length) {
      process.stderr.write(
        'baton: config.json has no notify sinks: add "notify": [{"ntfy": "https://ntfy.sh/TOPIC"}] or a webhook (docs/reference.md)\n',
      );
      return 2;
    }
    const results = await testSinks(config, dashboardUrl(config));
    if (inv.values.json) process.stdout.write(`${JSON.stringify(results)}\n`);
    else
      for (const r of results)
        process.stdout.write(
          `${r.ok ? 'sent  ' : 'FAILED'}  ${r.label} (${r.target})${r.ok ? '' : `: ${r.error}`}  ${r.ms} ms\n`,
        );
    return results.every((r) => r.ok) ? 0 : 1;
  },
};
