/** The bus a config names (SPEC §10: `bus.kind`, files by default). */
import type { Config } from '../config/config.js';
import type { Bus } from './bus.js';
import { FilesBus } from './files/files-bus.js';

export function openBus(config: Config): Bus {
  return new FilesBus(config);
}
