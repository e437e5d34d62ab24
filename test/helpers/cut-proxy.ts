/**
 * A TCP proxy in front of a test's PostgreSQL that loses one answer: once a client sends bytes holding
 * `marker`, they reach the server, the server runs and commits them, and its answer — up to its
 * ReadyForQuery, so the commit is done — is thrown away and both connections are cut. The client is left
 * not knowing whether its statement committed: what a server killed right after a commit does to it.
 * `onCut` runs then (a test stops the server and starts it again). Only the first matching statement is
 * cut; everything else passes through.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface CutProxy {
  url: string;
  /** How many answers were thrown away (0 or 1). */
  cuts(): number;
  close(): Promise<void>;
}

/** Each PostgreSQL backend message: a type byte, then its length (4 bytes, itself included). */
function readyForQuery(buf: Buffer): boolean {
  for (let i = 0; i + 5 <= buf.length; ) {
    if (buf[i] === 0x5a /* Z */) return true;
    i += 1 + buf.readUInt32BE(i + 1);
  }
  return false;
}

export async function cutProxy(o: { port: number; marker: string; onCut: () => Promise<void> }): Promise<CutProxy> {
  let cut = 0;
  let armed = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(o.port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let cutting = false;
    let answer = Buffer.alloc(0);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (b: Buffer) => {
      if (armed && b.includes(o.marker)) {
        armed = false;
        cutting = true;
      }
      upstream.write(b);
    });
    upstream.on('data', (b: Buffer) => {
      if (!cutting) return void client.write(b);
      answer = Buffer.concat([answer, b]);
      if (!readyForQuery(answer)) return;
      cutting = false;
      cut++;
      end();
      void o.onCut();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    cuts: () => cut,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
