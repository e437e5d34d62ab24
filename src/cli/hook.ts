/**
 * `baton hook EVENT --agent NAME --spool DIR`, what an agent CLI's hooks run: the hook's JSON from stdin left as a
 * note in the agent's spool for the daemon. No daemon round trip, no config, only node's own modules: it costs a
 * prompt only node's start-up. It never blocks or breaks the agent: nothing on stdout (Claude Code adds a
 * UserPromptSubmit hook's stdout to the model's context), never exit 2 (that drops the prompt), exit 0 even when
 * it cannot write, saying why on stderr.
 */
import { parseArgs } from 'node:util';
import { HOOK_EVENTS, type HookEvent } from '../core/hook-note.js';
import { writeNote } from '../terminal/hooks/write-note.js';

export const HOOK_USAGE = 'hook EVENT --agent NAME --spool DIR';

/** Read stdin whole (a hook payload: a prompt may be a megabyte), giving up after 4 s (the hook's own limit is 5). */
async function stdin(): Promise<string> {
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', resolve);
    process.stdin.on('error', () => resolve());
    setTimeout(resolve, 4000).unref();
  });
  return Buffer.concat(chunks).toString('utf8');
}

export async function runHook(argv: string[]): Promise<number> {
  // Whatever happens, the agent gets its prompt through: a hook that cannot finish in 5 s gives up.
  const watchdog = setTimeout(() => {
    process.stderr.write('baton hook: gave up after 5 s\n');
    process.exit(0);
  }, 5000);
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { agent: { type: 'string' }, spool: { type: 'string' }, config: { type: 'string' } },
      allowPositionals: true,
    });
    const event = positionals[0] as HookEvent | undefined;
    if (!event || !(HOOK_EVENTS as readonly string[]).includes(event) || !values.agent || !values.spool) {
      process.stderr.write(`baton hook: usage: baton ${HOOK_USAGE} (EVENT: ${HOOK_EVENTS.join(', ')})\n`);
      return 0;
    }
    const text = await stdin();
    let payload: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(text);
      payload = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { raw: text };
    } catch {
      payload = { raw: text };
    }
    writeNote(values.spool, { event, agent: values.agent, at: new Date().toISOString(), payload });
  } catch (err) {
    process.stderr.write(`baton hook: ${(err as Error).message}\n`);
  } finally {
    clearTimeout(watchdog);
  }
  return 0;
}
