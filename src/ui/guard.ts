/**
 * The dashboard's guard rails, checked in this order for every request:
 *  - Host must be a loopback name (unless --allow-remote): a DNS-rebinding page cannot read the
 *    conversation through a name it controls. Any port, so an SSH tunnel or port mapping works.
 *  - With an access token (--token; required by --allow-remote), it is needed for everything: from a
 *    cookie, or ?token= once.
 *  - A POST needs the per-run token embedded in the page (X-Baton-Token) and an Origin equal to this
 *    server's: another site's form or script cannot steer the agents.
 * Each check throws an HttpError that says what to do.
 */
import type { IncomingMessage } from 'node:http';
import { UsageError } from '../app/input.js';
import { cookie, HttpError, isLoopback, sameToken } from './http.js';

export interface Access {
  /** Listening for other machines: the access token guards every request instead of the Host. */
  allowRemote: boolean;
  accessToken: string | undefined;
  /** The per-run token the page carries in X-Baton-Token. */
  pageToken: string;
  /** The access token's cookie, named after the port: cookies ignore ports, two dashboards must not collide. */
  cookieName: string;
}

/** Refuse options that would expose the conversation: a remote address needs --allow-remote and a token. */
export function checkListen(host: string, opts: { allowRemote?: boolean; accessToken?: string | undefined }): void {
  if (!isLoopback(host) && !opts.allowRemote)
    throw new UsageError(`${host} is not a loopback address: add --allow-remote and --token to serve other machines`);
  if (opts.allowRemote && !opts.accessToken) throw new UsageError('--allow-remote needs --token (or BATON_UI_TOKEN)');
  if (opts.accessToken !== undefined && opts.accessToken.length < 16)
    throw new UsageError('the access token (--token or BATON_UI_TOKEN) must be at least 16 characters');
}

/** Every request: the Host, then the access token when there is one. */
export function checkRequest(req: IncomingMessage, url: URL, access: Access): void {
  if (!access.allowRemote) {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(req.headers.host ?? '');
    if (!m || !isLoopback(m[1]!.toLowerCase()))
      throw new HttpError(421, 'this server answers only to a loopback address (Host: 127.0.0.1, localhost or [::1])');
  }
  if (access.accessToken !== undefined) {
    const given = url.searchParams.get('token') ?? cookie(req, access.cookieName);
    if (!sameToken(given, access.accessToken))
      throw new HttpError(401, 'open the address baton ui printed (it carries ?token=)');
  }
}

/** A control (POST): same origin, and the page's token. */
export function checkControl(req: IncomingMessage, access: Access): void {
  const origin = req.headers.origin;
  // https too: behind a TLS proxy the page's origin is https with the same Host.
  if (!origin || (origin !== `http://${req.headers.host}` && origin !== `https://${req.headers.host}`))
    throw new HttpError(403, 'cross-origin request refused (Origin must be this server)');
  if (!sameToken(req.headers['x-baton-token'] as string | undefined, access.pageToken))
    throw new HttpError(
      403,
      'missing or wrong X-Baton-Token (reload the page: the token changes with each run of baton ui)',
    );
}
