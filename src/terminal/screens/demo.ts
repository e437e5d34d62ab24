import type { Screen } from '../screen.js';

/**
 * The demo agent prints its banner once it reads its terminal. Until then typed text would reach a
 * terminal still in cooked mode and be lost, so its screen is a readiness gate (and only that: it has no
 * input box to confirm a submit with).
 */
export function readDemoScreen(lines: string[]): Screen {
  return lines.some((l) => l.startsWith('baton demo agent "'))
    ? { state: 'ready', busy: false }
    : { state: 'unknown', detail: 'the demo agent is starting' };
}
