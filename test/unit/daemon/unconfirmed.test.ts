/** daemon/unconfirmed.ts: which stamped deliveries without a receipt are reported, and which are typed again. */
import { describe, expect, it } from 'vitest';
import { Unconfirmed } from '../../../src/daemon/unconfirmed.js';

describe('deliveries their hook never confirmed', () => {
  const idle = () => false;

  it('reported once past the bound while the agent is not busy; a receipt in time clears it', () => {
    const u = new Unconfirmed(['a', 'b'], 1000);
    u.stamped('msg_0001', 'a', false, 0);
    u.stamped('msg_0002', 'b', false, 0);
    u.stamped('msg_0003', 'a', true, 0); // came with its receipt
    u.stamped('msg_0004', 'c', false, 0); // an agent without hooks
    u.received('msg_0002', 'b');
    expect(u.due(idle, 999)).toEqual([]);
    expect(u.due(() => true, 5000)).toEqual([]); // busy: its queue may hold it
    expect(u.due(idle, 5000).map((o) => o.id)).toEqual(['msg_0001']);
    expect(u.due(idle, 9000)).toEqual([]);
  });

  it("typed again only where the agent's hooks are known to work, and only once per message", () => {
    const u = new Unconfirmed(['a', 'b'], 1000);
    u.stamped('msg_0001', 'a', false, 0); // a's hooks never reported anything: proves nothing
    u.stamped('msg_0002', 'b', false, 0);
    u.received('msg_0002', 'b');
    u.stamped('msg_0003', 'b', false, 0);
    expect(u.due(idle, 2000).map((o) => [o.id, o.suspect])).toEqual([
      ['msg_0001', false],
      ['msg_0003', true],
    ]);
    expect(u.next()).toEqual({ id: 'msg_0003', agent: 'b' });
    expect(u.next()).toBeUndefined();
    // Typed again, stamped again, and still no receipt: reported, not typed a third time.
    u.stamped('msg_0003', 'b', false, 3000);
    expect(u.due(idle, 5000).map((o) => [o.id, o.suspect])).toEqual([['msg_0003', false]]);
    expect(u.next()).toBeUndefined();
  });
});
