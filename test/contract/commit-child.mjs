// A daemon's turn step in a child process, for the contract suite's kill tests: take the lease, recover,
// commit the first waiting message, stamp it. BATON_FAILPOINT kills it (SIGKILL) at the named step.
import { openBus } from '../../dist/bus/open.js';
import { loadConfig, locateConfig } from '../../dist/config/load.js';
import { stamped } from '../../dist/core/record.js';
import { decide } from '../../dist/core/turns.js';

const config = loadConfig(locateConfig(process.argv[2]));
const rules = { policy: config.turns.policy, agents: config.order };
const d = openBus(config).delivery();
await d.lease(
  { pid: process.pid, host: (await import('node:os')).hostname(), started_at: new Date().toISOString() },
  () => {},
);
await d.recover();
let items = [];
for (let i = 0; i < 200 && !items.length; i++) {
  await d.rescan();
  items = (await d.queues()).flatMap((q) => q.items.filter((x) => x.ready));
  if (!items.length) await new Promise((r) => setTimeout(r, 25));
}
const w = items[0];
const c = await d.commit(w, (s) => decide(s, w.direction, rules));
if (c.kind !== 'committed') throw new Error(`not committed: ${JSON.stringify(c)}`);
await d.stamp(stamped(c.record, 'not_checked', false, new Date().toISOString()));
console.log('done without being killed');
process.exit(0);
