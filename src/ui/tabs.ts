/**
 * The browser tabs the feed writes to. Every chunk goes to every tab, in order; a tab that is gone or too
 * slow (its sink says false) is dropped. A tab that joins is first sent its backlog, and what is broadcast
 * meanwhile waits in its queue until the backlog is out, so it gets every chunk once and in order.
 */

/** Writes one SSE chunk to a tab; returns false when the tab is gone or too slow (it is dropped). */
export type Sink = (chunk: string) => boolean;

/** A tab while its backlog is sent: `send` says (and `alive` keeps) whether it still takes chunks. */
export interface Joining {
  send(chunk: string): boolean;
  readonly alive: boolean;
}

interface Sub {
  sink: Sink;
  /** Chunks that arrive while the tab's backlog is being replayed. */
  queue: string[] | null;
}

export class Tabs {
  private readonly subs = new Set<Sub>();

  get size(): number {
    return this.subs.size;
  }

  broadcast(chunk: string): void {
    for (const sub of this.subs) {
      if (sub.queue) sub.queue.push(chunk);
      else if (!sub.sink(chunk)) this.subs.delete(sub);
    }
  }

  /**
   * A tab joins: `backlog` sends what it missed; then the chunks broadcast meanwhile follow. Returns the
   * function that removes it.
   */
  async join(sink: Sink, backlog: (tab: Joining) => Promise<void>): Promise<() => void> {
    const sub: Sub = { sink, queue: [] };
    this.subs.add(sub);
    const leave = () => void this.subs.delete(sub);
    let alive = true;
    const tab: Joining = {
      send: (chunk) => (alive &&= sink(chunk)),
      get alive() {
        return alive;
      },
    };
    try {
      await backlog(tab);
    } finally {
      const queued = sub.queue ?? [];
      sub.queue = null;
      for (const c of queued) if (!tab.send(c)) break;
      if (!alive) leave();
    }
    return leave;
  }
}
