/**
 * Notifications as `status` shows them and `baton notify --test` tries them (docs/reference.md, "notify"):
 * each sink of config.json with how it has fared — from the record the daemon that sends writes beside the
 * config (config/notify-record.ts) — and one sample sent to every sink, each result reported.
 */
import type { Config } from '../config/config.js';
import { readNotifyRecord, type SinkRecord } from '../config/notify-record.js';
import { type NotifyPayload, testPayload } from '../core/notify/payload.js';
import { conversationOf, labelOf } from '../daemon/notify/notifier.js';
import { attempt, kindOf, targetOf } from '../daemon/notify/send.js';

type Sink = Config['notify'][number];
const sinkOf = (s: Sink, i: number) => ({ label: labelOf(s, i), kind: kindOf(s), target: targetOf(s) });

/** Each configured sink and its last success and failure (none yet: nothing sent since a daemon wrote). */
export function notifyStatus(config: Pick<Config, 'notify' | 'file' | 'host'>): SinkRecord[] {
  const record = config.file ? readNotifyRecord(config.file, config.host) : null;
  return config.notify.map((s, i) => {
    const mine = sinkOf(s, i);
    const seen = record?.sinks.find((r) => r.label === mine.label && r.kind === mine.kind && r.target === mine.target);
    const { last_success = null, last_failure = null, ...n } = seen ?? ({} as Partial<SinkRecord>);
    const { sent = 0, failed = 0, folded = 0, dropped = 0 } = n;
    return { ...mine, events: [...s.events], last_success, last_failure, sent, failed, folded, dropped };
  });
}

export interface TestResult {
  label: string;
  kind: string;
  target: string;
  ok: boolean;
  /** Why it failed, or null. */
  error: string | null;
  ms: number;
}

/** One sample to every sink at once, one attempt each (within its timeout_s): what each said. */
export async function testSinks(
  config: Pick<Config, 'notify' | 'file' | 'host' | 'baseDir' | 'messageDir' | 'bus'>,
  dashboard: string | null = null,
): Promise<TestResult[]> {
  const at = { conversation: conversationOf(config), host: config.host, url: dashboard };
  const p: NotifyPayload = testPayload(at, Date.now());
  return Promise.all(
    config.notify.map(async (s, i) => {
      const t0 = performance.now();
      const a = await attempt(s, p, { cwd: config.baseDir });
      return {
        ...sinkOf(s, i),
        ok: a.kind === 'sent',
        error: a.kind === 'failed' ? a.error : null,
        ms: Math.round(performance.now() - t0),
      };
    }),
  );
}
