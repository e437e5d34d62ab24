import { describe, expect, it } from 'vitest';
import { RequestSchema } from '../../../src/core/requests.js';

describe("requests: a notice from another machine's daemon", () => {
  it('is baton\'s own words: it must start with "[baton] ", so nothing it says can run as a command', () => {
    expect(
      RequestSchema.safeParse({ op: 'notice', to: 'a', text: '[baton] the conversation has finished' }).success,
    ).toBe(true);
    expect(RequestSchema.safeParse({ op: 'notice', to: 'a', text: '/clear' }).success).toBe(false);
    expect(RequestSchema.safeParse({ op: 'notice', to: 'a', text: ' [baton] x' }).success).toBe(false);
  });
});
