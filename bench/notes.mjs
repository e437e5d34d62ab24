// The notes every recorder pane (bench/recorder.mjs) sends when a message reaches it: one unix socket, a
// JSON line per note. The bus bench and the many-conversations bench both wait on them.
import { createServer } from 'node:net';
import { join } from 'node:path';

export class Notes {
  constructor(dir) {
    this.path = join(dir, 'notify.sock');
    this.list = [];
    this.waiters = [];
    this.server = createServer((s) => {
      let buf = '';
      s.on('data', (d) => {
        buf += d;
        for (let nl; (nl = buf.indexOf('\n')) >= 0; ) {
          const note = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          this.list.push(note);
          for (const w of this.waiters.splice(0)) if (!w(note)) this.waiters.push(w);
        }
      });
    });
  }

  listen() {
    return new Promise((r) => this.server.listen(this.path, r));
  }

  /** The first note `pred` accepts; `past`: one already received counts too. */
  wait(pred, ms = 60_000, { past = true } = {}) {
    const seen = past ? this.list.find(pred) : undefined;
    if (seen) return Promise.resolve(seen);
    return new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error('timed out waiting for a recorder')), ms);
      this.waiters.push((n) => {
        if (!pred(n)) return false;
        clearTimeout(t);
        res(n);
        return true;
      });
    });
  }

  close() {
    this.server.close();
  }
}
