/**
 * What the daemon reads of the agents' hooks, as a port (as typist.ts is for typing): the notes in each
 * agent's spool (spool.ts), a hint when one may have come, the agents' states written back for status and
 * the dashboard, and the transcripts a note points to (a Gemini turn's reply, a turn's tokens). The daemon
 * (daemon/receipts.ts) sees only this interface, so what it makes of the notes is unit-tested against a
 * fake; SpoolIntake is the real one, on the files.
 */
import { type FSWatcher, watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type AgentStates, readNotes, removeNote, type Spooled, spoolDir, writeAgentStates } from './spool.js';
import { TranscriptTail, transcriptReply } from './transcript.js';

/** A transcript read on from where the last look ended. */
export interface Transcript {
  read(): Promise<readonly unknown[]>;
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
  /** A turn's final reply from a Gemini CLI transcript (null: none found). */
  transcriptReply(path: string | null): Promise<string | null>;
  transcript(path: string): Transcript;
}

export class SpoolIntake implements HookIntake {
  private readonly watchers: FSWatcher[] = [];

  constructor(private readonly messageDir: string) {}

  async ensure(agent: string): Promise<void> {
    await mkdir(spoolDir(this.messageDir, agent), { recursive: true });
  }

  watch(agent: string, changed: () => void): void {
    try {
      this.watchers.push(watch(spoolDir(this.messageDir, agent), changed).on('error', () => {}));
    } catch {
      /* no watcher: the daemon lists the spools on its own every few seconds */
    }
  }

  unwatch(): void {
    for (const w of this.watchers.splice(0)) w.close();
  }

  notes(agent: string): Promise<Spooled[]> {
    return readNotes(spoolDir(this.messageDir, agent));
  }

  take(agent: string, name: string): Promise<void> {
    return removeNote(spoolDir(this.messageDir, agent), name);
  }

  saveStates(states: AgentStates): Promise<void> {
    return writeAgentStates(this.messageDir, states);
  }

  transcriptReply(path: string | null): Promise<string | null> {
    return transcriptReply(path);
  }

  transcript(path: string): Transcript {
    return new TranscriptTail(path);
  }
}
