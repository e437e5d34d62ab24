/**
 * The scheduler is made before the parts a pass runs (they ask it for wake-ups) and given the pass last
 * (daemon/wiring.ts): a kick before that is kept, not lost, and passes never overlap.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/daemon/scheduler.js';
import { log } from '../../../src/lib/log.js';

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('the scheduler', () => {
  it('keeps a kick that came before its pass, and runs the pass once it is given', async () => {
    const s = new Scheduler(log.create({ level: 0 }));
    let passes = 0;
    s.kick();
    await settle();
    s.drive(async () => {
      passes++;
      return false;
    });
    await settle();
    expect(passes).toBe(1);
    await s.stop();
  });

  it('runs one pass at a time: kicks during a pass run one more after it, not one each', async () => {
    const s = new Scheduler(log.create({ level: 0 }));
    let running = 0;
    let most = 0;
    let passes = 0;
    let release = () => {};
    s.drive(async () => {
      running++;
      most = Math.max(most, running);
      passes++;
      await new Promise<void>((r) => (release = r));
      running--;
      return false;
    });
    s.kick(); // the first pass starts at once and waits
    s.kick();
    s.kick();
    release();
    await settle();
    release();
    await settle();
    expect(most).toBe(1);
    expect(passes).toBe(2);
    await s.stop();
  });
});
