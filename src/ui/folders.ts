/** What the dashboard lists on request: rejected files with their reasons, and pending messages (from the bus). */
import type { Listings } from '../bus/bus.js';
import type { PendingItem, RejectedItem } from './api.js';

/** The newest `limit` rejections (by the note's time), with why each was refused. */
export function listRejected(bus: Listings, limit: number): Promise<{ count: number; items: RejectedItem[] }> {
  return bus.rejections(limit);
}

/** Moderated mode: the messages waiting for approval, with what they say (capped), in order. */
export function listPending(bus: Listings, cap = 16 * 1024): Promise<PendingItem[]> {
  return bus.approvalsView(cap);
}
