/**
 * What the daemon reads of the agents' hooks, as a port (as typist.ts is for typing): the notes in each
 * agent's spool (spool.ts), a hint when one may have come, the agents' states written back for status and
 * the dashboard, and the transcripts a note points to (a Gemini turn's reply, a turn's tokens). The daemon
 * (daemon/receipts.ts) sees only this interface, so what it makes of the notes is unit-tested against a
 * fake; SpoolIntake is the real one, on the files.
 *
 * Everything here is read as something an agent may have written to harm the daemon (it can write its own
 * spool): notes and transcripts only as regular files this user owns, never through a link, capped
 * (lib/own-file.ts, transcript.ts), a transcript only under its client's own folders (client-folders.ts).
 */
import { type FSWatcher, watch } from 'node:fs';
import { lstat, unlink } from 'node:fs/promises';
import type { Config } from '../../config/config.js';
import { makeDirBelow } from '../../lib/fsx.js';
import type { Logger } from '../../lib/log.js';
import { fileType } from '../../lib/own-file.js';
import { clientFolders } from './client-folders.js';
import type { AgentStates, Spooled } from './spool.js';
import { readNotes, removeNote, spoolDir, spoolRoot, writeAgentStates } from './spool.js';
import { TranscriptTail, transcriptReply } from './transcript.js';

/** A transcript read on from where the last look ended. */
export interface Transcript {
  read(): Promise<readonly unknown[]>;
  /** Why it is not read (for good): not a regular file, not under its client's folders… Null or absent while it may be. */
  readonly refused?: string | null;
}

export interface HookIntake {
  /** Make the agent's spool folder (so it can be watched before any hook wrote to it). */
  ensure(agent: string): Promise<void>;
  /** Call `changed` whenever a note may have come into the agent's spool: a hint, never data. */
  watch(agent: string, changed: () => void): void;
  /** Stop every watch. */
  unwatch(): void;
  /** The notes waiting in the agent's spool, oldest first. */
  notes(agent: string): Promise<Spooled[]>;
  /** Remove a note once it is handled (or set aside). */
  take(agent: string, name: string): Promise<void>;
  /** The agents' hook-derived states, for `baton status` and the dashboard. */
  saveStates(states: AgentStates): Promise<void>;
  /** A turn's final reply from the agent's Gemini CLI transcript (null: none found, or not read). */
  transcriptReply(agent: string, path: string | null): Promise<string | null>;
  /** The agent's transcript at `path`, read on from where the last look ended. */
  transcript(agent: string, path: string): Transcript;
}

/** The largest hook note read: a prompt of inbox.max_bytes, JSON-escaped, with room to spare. */
const noteLimit = (config: Pick<Config, 'inbox'>): number => Math.max(8 << 20, 4 * config.inbox.max_bytes);

export class SpoolIntake implements HookIntake {
  private readonly watchers: FSWatcher[] = [];

  constructor(
    private readonly config: Pick<Config, 'messageDir' | 'agents' | 'inbox'>,
    private readonly log: Logger,
  ) {}

  async ensure(agent: string): Promise<void> {
    // Below the message folder only: one moved away under the daemon is not made again (bus/anchor.ts).
    await makeDirBelow(this.config.messageDir, spoolDir(this.config.messageDir, agent));
  }

  watch(agent: string, changed: () => void): void {
    try {
      this.watchers.push(watch(spoolDir(this.config.messageDir, agent), changed).on('error', () => {}));
    } catch {
      /* no watcher: the daemon lists the spools on its own every few seconds */
    }
  }

  unwatch(): void {
    for (const w of this.watchers.splice(0)) w.close();
  }

  async notes(agent: string): Promise<Spooled[]> {
    const dir = spoolDir(this.config.messageDir, agent);
    // The spool (or .hooks/) replaced by a link — to /proc, to another folder: never listed through it.
    for (const d of [spoolRoot(this.config.messageDir), dir]) {
      const st = await lstat(d).catch(() => null);
      if (!st || st.isDirectory()) continue;
      this.log.warn(`${agent}'s hook spool: ${d} is ${fileType(st)}, not a folder; removed, and made again`);
      await unlink(d).catch(() => {});
      await makeDirBelow(this.config.messageDir, dir).catch(() => {});
      return [];
    }
    return readNotes(dir, noteLimit(this.config));
  }

  take(agent: string, name: string): Promise<void> {
    return removeNote(spoolDir(this.config.messageDir, agent), name);
  }

  saveStates(states: AgentStates): Promise<void> {
    return writeAgentStates(this.config.messageDir, states);
  }

  async transcriptReply(agent: string, path: string | null): Promise<string | null> {
    const { reply, refused } = await transcriptReply(path, this.folders(agent));
    if (refused) this.log.warn(`${agent}'s transcript (named by its hook) is not read: ${refused}`);
    return reply;
  }

  transcript(agent: string, path: string): Transcript {
    return new TranscriptTail(path, this.folders(agent));
  }

  private folders(agent: string): string[] {
    const a = this.config.agents[agent];
    return a ? clientFolders(a) : [];
  }
}
