/**
 * app/status/status.ts turnSeconds: the turn clock `status`, `ls`, `ls --bus` and the overview show runs only while a
 * turn runs — a finished conversation's kept counting ("claude1 for 5400 s"), and a paused one's stands still.
 */
import { describe, expect, it } from 'vitest';
import { turnSeconds } from '../../../src/app/status/status.js';

const now = Date.parse('2026-01-01T00:10:00.000Z');
const started = '2026-01-01T00:00:00.000Z';

describe('the turn clock', () => {
  it('runs from turn_started_at while the conversation runs', () => {
    expect(turnSeconds({ turn_started_at: started }, now)).toBe(600);
    expect(turnSeconds({ turn_started_at: started, finished: null, paused: null }, now)).toBe(600);
  });

  it('shows nothing once finished or paused, nor before any turn', () => {
    expect(turnSeconds({ turn_started_at: started, finished: { reason: 'max_turns', at: started } }, now)).toBeNull();
    expect(turnSeconds({ turn_started_at: started, paused: { at: started } }, now)).toBeNull();
    expect(turnSeconds({}, now)).toBeNull();
    expect(turnSeconds(null, now)).toBeNull();
  });
});
