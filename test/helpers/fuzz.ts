/**
 * How hard the seeded fuzz tests push. By default a size that runs in tens of milliseconds, so the unit
 * tier stays a loop of seconds; BATON_FUZZ=long gives the sizes they were written with (tens of thousands
 * of texts, transcripts of tens of MiB) — run it after changing what they test:
 *
 *   BATON_FUZZ=long npx vitest run test/unit/core/json-prefix.test.ts test/unit/terminal/hooks/transcript.test.ts
 */
const LONG_FUZZ = process.env.BATON_FUZZ === 'long';

/** `quick` in the everyday run, `long` under BATON_FUZZ=long. */
export const fuzz = <T>(quick: T, long: T): T => (LONG_FUZZ ? long : quick);
