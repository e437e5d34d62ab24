#!/usr/bin/env node
// Does a notify sink that never answers slow the conversation down? A ping-pong (two recorder agents answering
// each other at once), with and without such a sink (every event, cooldown_s 0), interleaved in pairs. A
// ping-pong has nothing to tell until it ends, so this measures what the notifier adds to every event the
// daemon logs; what a storm of notifications costs is test/unit/daemon/notify/notifier.test.ts's.
//   node bench/notify.mjs [--pairs N] [--trips N]
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { median, pad4, Rig, round, say } from './rig.mjs';

const { values: opt } = parseArgs({ options: { pairs: { type: 'string' }, trips: { type: 'string' } } });
const PAIRS = Number(opt.pairs ?? 3);
const TRIPS = Number(opt.trips ?? 100);

const hang = createServer(() => {}); // takes each request and never answers
await new Promise((r) => hang.listen(0, '127.0.0.1', r));
const hangUrl = `http://127.0.0.1:${hang.address().port}/hook`;
let received = 0;
hang.on('request', () => received++);

async function run(withSink) {
  const rig = new Rig();
  const good = readFileSync(rig.config, 'utf8');
  const config = withSink
    ? JSON.stringify({ ...JSON.parse(good), notify: [{ webhook: hangUrl, cooldown_s: 0, timeout_s: 300 }] })
    : good;
  writeFileSync(rig.config, config);
  try {
    const total = TRIPS * 2;
    await rig.recorders({ reply: true, until: total });
    await rig.daemon();
    const last = rig.note((x) => x.id === pad4(total), 120_000);
    const t0 = rig.send('claude1', 'ping');
    const end = await last;
    return { per_s: round(total / ((end.done - t0) / 1000)), correct: rig.archive().length === total };
  } finally {
    await rig.stop();
  }
}

const rates = { none: [], hanging: [] };
for (let i = 0; i < PAIRS; i++) {
  for (const withSink of i % 2 ? [true, false] : [false, true]) {
    const r = await run(withSink);
    rates[withSink ? 'hanging' : 'none'].push(r.per_s);
    say(`${withSink ? 'hanging sink' : 'no sink     '}: ${r.per_s} msg/s (correct ${r.correct})`);
  }
}
say(
  `median msg/s — no sink ${median(rates.none)}, a sink that never answers ${median(rates.hanging)}; requests the hanging sink took: ${received}`,
);
hang.closeAllConnections();
hang.close();
