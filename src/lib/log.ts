/** The one logger. Level from CONSOLA_LEVEL (consola's own rule); `[baton]` tag on every line. */
import { createConsola } from 'consola';

export const log = createConsola({ defaults: { tag: 'baton' } });
export type Logger = typeof log;

/** A logger that says nothing (a bus opened by a command that only reads, or by a test). */
export const silent: Logger = log.create({ level: Number.NEGATIVE_INFINITY });
