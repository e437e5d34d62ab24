/**
 * `BATON_FAILPOINT=<name>` SIGKILLs this process at the durable step of that name (as etcd and TiKV test their
 * storage): test/contract/ kills a daemon between every two durable steps on every bus and checks what recovery
 * finds; test/integration/recovery.test.ts kills one between a paste and its Enter. Unset: one string compare.
 */
const armed = process.env.BATON_FAILPOINT || null;

/**
 * The durable steps of a turn step and its stamp; `pasted`: a message pasted, its Enter not pressed yet;
 * `set_aside`: a file on its way to rejected/ taken out of its folder (folders/aside.ts), not moved on yet;
 * `relay_claimed`: a file renamed into `.relaying/` (postgres/relay.ts), not stored yet; `relay_stored`: its
 * insert committed, the claimed file not removed yet.
 */
type TurnStep = 'claimed' | 'archived' | 'state_saved' | 'pasted' | 'stamped';
export type Failpoint = TurnStep | 'set_aside' | 'relay_claimed' | 'relay_stored';

export function failpoint(name: Failpoint): void {
  if (armed === name) process.kill(process.pid, 'SIGKILL');
}
