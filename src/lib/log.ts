/** The one logger. Level from CONSOLA_LEVEL (consola's own rule); `[baton]` tag on every line. */
import { createConsola } from 'consola';

export const log = createConsola({ defaults: { tag: 'baton' } });
export type Logger = typeof log;
