/**
 * app/machine/leave.ts leftLabel: what `down` says of the machine's daemon — not only that this conversation's
 * place in it ended, but whether the daemon goes on for others or had nothing else to serve.
 */
import { describe, expect, it } from 'vitest';
import { leftLabel } from '../../../src/app/machine/leave.js';

const left = { left: true as const, pid: 12, released: true, exited: false };

describe("what down says of the machine's daemon", () => {
  it('how many others it still serves, or that it exited, or that it stays (the service)', () => {
    expect(leftLabel({ ...left, others: 2 })).toBe(
      "its place in the machine's daemon (pid 12); it still serves 2 other conversations",
    );
    expect(leftLabel({ ...left, others: 1 })).toBe(
      "its place in the machine's daemon (pid 12); it still serves 1 other conversation",
    );
    expect(leftLabel({ ...left, exited: true, others: 0 })).toBe(
      "its place in the machine's daemon (pid 12); it had nothing else to serve and exited",
    );
    expect(leftLabel({ ...left, others: 0, stays: true })).toBe(
      "its place in the machine's daemon (pid 12); it has nothing else to serve and stays running (started to stay: baton service)",
    );
    expect(leftLabel({ ...left, others: null })).toBe("its place in the machine's daemon (pid 12)");
  });
});
