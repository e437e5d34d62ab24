/**
 * The kinds an agent may be (config.json's agents.<name>.kind; terminal/kinds.ts says how each is driven).
 * Here and not in schema.ts, so `baton init --help` lists them without loading zod.
 */
export const AGENT_KINDS = ['claude', 'codex', 'gemini', 'aider', 'shell', 'generic'] as const;
