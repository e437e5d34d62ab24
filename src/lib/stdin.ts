/**
 * Standard input read to its end (pipe, file, terminal, socket), never more than a limit. `readFileSync(0)`
 * crashed `cat 200k.txt | baton post -` with EAGAIN: loading the CLI creates `process.stdin` (execa and ESM
 * imports of node:process read it), which makes a pipe on fd 0 non-blocking, so a synchronous read ahead of its
 * writer fails instead of waiting. Reading the stream waits.
 */

export type StdinRead =
  | { kind: 'text'; text: string }
  /** More than `limit` bytes came: reading stopped there (the rest is never read). */
  | { kind: 'over'; limit: number }
  | { kind: 'failed'; why: string };

/** Read `stream` (standard input) to its end as UTF-8, or stop past `limit` bytes. */
export async function readStdin(limit: number, stream: NodeJS.ReadableStream = process.stdin): Promise<StdinRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Leaving the loop early (over the limit) destroys the stream: the writer gets EPIPE, nothing more is read.
    for await (const chunk of stream) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += b.length;
      if (size > limit) return { kind: 'over', limit };
      chunks.push(b);
    }
  } catch (err) {
    return { kind: 'failed', why: err instanceof Error ? err.message : String(err) };
  }
  return { kind: 'text', text: Buffer.concat(chunks).toString('utf8') };
}
