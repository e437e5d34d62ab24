/**
 * Where each conversation lives on a dashboard that serves many: `/c/<id>/`, its id a short hash of its
 * registry key (app/machine/registry.ts keyOf: its message folder, or its config file on PostgreSQL) — so an
 * address stays the same across runs of `baton ui` and restarts of the daemon, and names no folder in the URL.
 * Under that prefix everything is what the single-conversation dashboard serves at `/` (the page's API paths
 * are relative). The overview of them all is at `/all` (and at `/` when `baton ui` serves no one conversation).
 */
import { conversationId } from '../lib/conversation-id.js';

export { conversationId };

export const conversationPath = (id: string): string => `/c/${id}/`;

const OVERVIEW_PATH = '/all';

export type Route =
  /** `rest` is the path under the conversation's prefix, starting with `/` (the page is `/`). */
  | { kind: 'conversation'; id: string; rest: string }
  /** `/c/<id>` without its slash: the page's relative paths need it. */
  | { kind: 'redirect'; to: string }
  | { kind: 'overview'; rest: string }
  | { kind: 'root'; path: string };

/** What a request's path names. A `/c/…` path that is not a well-formed id is the root's (a 404 there). */
export function routeOf(path: string): Route {
  const c = /^\/c\/([0-9a-f]{12})(\/.*)?$/.exec(path);
  if (c)
    return c[2] === undefined ? { kind: 'redirect', to: `${path}/` } : { kind: 'conversation', id: c[1]!, rest: c[2] };
  if (path === OVERVIEW_PATH || path.startsWith(`${OVERVIEW_PATH}/`))
    return { kind: 'overview', rest: path.slice(OVERVIEW_PATH.length) || '/' };
  return { kind: 'root', path };
}
