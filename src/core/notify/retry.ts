/**
 * When a sink that failed is tried again (docs/protocol.md §12): backoff doubling from 1 s up to 30 s, for at
 * most 2 min from the first attempt — a receiver restarting comes back within that, and a notification older
 * than that is stale news. Pure: the caller gives the elapsed time.
 */

export interface RetryPlan {
  firstMs: number;
  maxMs: number;
  /** No attempt starts later than this after the first one. */
  totalMs: number;
}

export const SINK_RETRY: RetryPlan = { firstMs: 1000, maxMs: 30_000, totalMs: 120_000 };

/** What one attempt came to, as the sending side saw it. */
export type Attempt =
  | { kind: 'sent'; status?: number | undefined }
  /** `retry`: worth trying again (no answer, a timeout, 5xx, 429); false: the same request fails the same way. */
  | { kind: 'failed'; error: string; retry: boolean };

/** An HTTP status as an attempt: 2xx sent; 5xx, 408 and 429 worth a retry; any other refusal final. */
export function attemptOf(status: number): Attempt {
  if (status >= 200 && status < 300) return { kind: 'sent', status };
  const retry = status >= 500 || status === 408 || status === 429;
  return { kind: 'failed', error: `HTTP ${status}`, retry };
}

/** The wait after `failures` failed attempts, the first `elapsedMs` ago; null: the next would start past the total. */
export function retryDelay(plan: RetryPlan, failures: number, elapsedMs: number): number | null {
  const delay = Math.min(plan.maxMs, plan.firstMs * 2 ** Math.max(0, failures - 1));
  return elapsedMs + delay > plan.totalMs ? null : delay;
}
