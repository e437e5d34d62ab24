/**
 * A conversation's id on a dashboard that serves many (`/c/<id>/`: ui/conversation-paths.ts): a short hash of
 * its registry key (app/machine/registry.ts keyOf). Here, below both, since a notification's link names it too.
 */
import { createHash } from 'node:crypto';

/** 12 hex digits: 48 bits, enough that two conversations of one machine never share one. */
export const conversationId = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 12);
