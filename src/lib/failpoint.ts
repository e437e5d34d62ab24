/**
 * Failpoints: `BATON_FAILPOINT=<name>` kills this process with SIGKILL the moment it reaches the durable
 * step of that name, as etcd and TiKV test their storage. The bus contract suite (test/contract/) uses
 * them to kill a daemon between every two durable steps of a delivery, on every bus, and then checks
 * what start-up recovery finds. Unset (always, outside that suite), a failpoint is one string compare.
 */
const armed = process.env.BATON_FAILPOINT || null;

export type Failpoint = 'claimed' | 'archived' | 'state_saved' | 'stamped';

export function failpoint(name: Failpoint): void {
  if (armed === name) process.kill(process.pid, 'SIGKILL');
}
