/** HTTP for the dashboard: errors as status codes, the security headers, tokens and cookies, loopback names. */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export function sameToken(given: string | undefined | null, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined; // not percent-encoding: no token
    }
  }
  return undefined;
}

/** A JSON body within `maxBody` bytes and `timeoutMs`: else 415, 413, 408 or 400, with the reason. */
export async function readJsonBody(req: IncomingMessage, maxBody: number, timeoutMs: number): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'send the body as application/json');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBody) throw new HttpError(413, `the body is larger than ${maxBody} bytes`);
  const parts: Buffer[] = [];
  let size = 0;
  const read = (async () => {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > maxBody) throw new HttpError(413, `the body is larger than ${maxBody} bytes`);
      parts.push(chunk as Buffer);
    }
  })();
  // A body that trickles in may not hold a connection (the server's requestTimeout is the backstop).
  let deadline: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    deadline = setTimeout(
      () => reject(new HttpError(408, `the body took longer than ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  read.catch(() => {}); // when it loses the race, the socket's end settles it
  try {
    await Promise.race([read, late]);
  } finally {
    clearTimeout(deadline);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}
