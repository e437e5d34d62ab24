/**
 * config.json's schema: one zod schema per section, and the file's types inferred from them. Errors name
 * the key path (`turns.policy: ...`). Resolving paths and defaults into a `Config` is config.ts.
 */
import { z } from 'zod';
import { CATCH_UP_MODES } from '../core/catch-up.js';
import { NOTIFY_EVENTS } from '../core/notify/happening.js';
import { ntfyTarget } from '../core/notify/payload.js';
import { REPLY_MODES } from '../core/receipt.js';
import { LOOP_DEFAULTS } from '../core/loop.js';
import { POLICIES } from '../core/turns.js';
import { AGENT_KINDS } from './agent-kinds.js';
import { AllowRuleSchema } from './allow.js';
import { CONVERSATION_NAME } from './conversation-name.js';

export { AGENT_KINDS };
/** Names under message_dir that belong to baton, so no direction folder may take them. */
const RESERVED_FOLDERS = ['archive', 'rejected', 'pending', 'requests', 'history', 'daemon.lock'] as const;

const matching = (form: RegExp, message: string) => z.string().regex(form, message);

const agentName = matching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'agent names use letters, digits, "_" and "-" (max 64)')
  .refine((n) => n !== 'user', '"user" is reserved for messages from a person')
  .refine((n) => n !== 'all', '"all" is reserved for a person\'s note to every agent (baton send --to all)');

const folderName = matching(
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
  'folder names use letters, digits, ".", "_" and "-"',
).refine((n) => !(RESERVED_FOLDERS as readonly string[]).includes(n), 'this folder name is used by baton itself');

const hostName = matching(
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
  'host names use letters, digits, ".", "_" and "-" (max 64)',
);

/** The PostgreSQL schema baton's tables live in unless `bus.schema` names another. */
export const DEFAULT_BUS_SCHEMA = 'baton';
/**
 * `bus.schema` goes into every statement as an identifier: lowercase letters, digits and "_" (nothing to escape,
 * the same quoted or not), at most 63 bytes (the server cuts longer ones), not pg_… (the system's).
 */
export const BUS_SCHEMA_NAME = /^(?!pg_)[a-z_][a-z0-9_]{0,62}$/;

// docs/protocol.md §10: where the conversation lives. The password belongs in BATON_BUS_URL, not in this file.
const BusSchema = z.strictObject({
  kind: z.enum(['files', 'postgres']).default('files'),
  url: matching(/^postgres(ql)?:\/\//, 'a postgres:// URL').optional(),
  conversation: matching(
    CONVERSATION_NAME,
    'conversation names use letters and digits of any script, ".", "_", "-" and %XX escapes (max 255)',
  ).optional(),
  /** The PostgreSQL schema of baton's tables: two schemas in one database are two separate buses. */
  schema: matching(
    BUS_SCHEMA_NAME,
    'a schema name uses lowercase letters, digits and "_", starts with a letter or "_" and not with "pg_" (max 63)',
  ).default(DEFAULT_BUS_SCHEMA),
});

const AgentSchema = z.strictObject({
  kind: z.enum(AGENT_KINDS).default('generic'),
  cwd: z.string().min(1).optional(),
  command: z.string().min(1).optional(),
  // tmux forbids ":" and "." in session names; we also keep them free of spaces for `attach`.
  session: matching(
    /^[A-Za-z0-9_-][A-Za-z0-9_@+-]*$/,
    'session names use letters, digits, "_", "-", "@" and "+"',
  ).optional(),
  target: matching(
    /^(%\d+|=?[A-Za-z0-9_@+-]+:\d+(\.\d+)?)$/,
    'a pane id like %3 or session:window.pane like work:1.0',
  ).optional(),
  env: z.record(matching(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment variable name'), z.string()).optional(),
  /** The machine whose tmux runs this agent (docs/protocol.md §10; default: this machine). */
  host: hostName.optional(),
  /**
   * How its turns reach the conversation: "post" — it runs `baton post`; "auto" — its final reply, as its Stop
   * hook reports it, is posted for it; "both" — it posts, and baton posts its final reply only when it forgot.
   */
  reply: z.enum(REPLY_MODES).default('post'),
  /** Pause the conversation once this agent's turns cost this much in USD (docs/protocol.md §12; 0: no limit). */
  max_cost_usd: z.number().min(0).default(0),
  /** What it may do without a dialog (allow.ts): written into its client's own permission settings at `up`. */
  allow: z.array(AllowRuleSchema).optional(),
});

/** USD per million tokens of one model (core/prices.ts has the table baton ships). */
const PriceSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cached_input: z.number().min(0).optional(),
  cache_write: z.number().min(0).optional(),
});

/** The whole catch-up, and one missed message in it, at most (bytes): measured, docs/protocol.md §11. */
export const CATCH_UP_MAX_BYTES = 8192;
export const CATCH_UP_MESSAGE_MAX_BYTES = 2048;

/** `turns.loop_guard` as an object: its numbers are measured (core/loop.ts, docs/protocol.md §12). */
const LoopGuardSchema = z.strictObject({
  window: z.int().min(2).max(100).default(LOOP_DEFAULTS.window),
  similarity: z.number().gt(0).max(1).default(LOOP_DEFAULTS.similarity),
});

/** `turns.closing`: the agent asked for the outcome when the conversation finishes (docs/protocol.md §12). */
const ClosingSchema = z.strictObject({ agent: agentName, prompt: z.string().min(1).optional() });

const TurnsSchema = z.strictObject({
  policy: z.enum(POLICIES).default('alternate'),
  max_turns: z.int().min(0).default(0),
  timeout_s: z.number().min(0).default(0),
  stop_phrase: z.string().min(1).optional(),
  stop_from: z.array(agentName).optional(),
  max_duration_s: z.number().min(0).default(0),
  max_nudges: z.int().min(0).default(3),
  moderated: z.boolean().default(false),
  /** End the conversation once its agents used this many tokens (from their hooks' transcripts; 0: no limit). */
  max_tokens: z.int().min(0).default(0),
  /** Pause the conversation once its agents' turns cost this much in USD (docs/protocol.md §12; 0: no limit). */
  max_cost_usd: z.number().min(0).default(0),
  /**
   * With three or more agents, what an agent's turn carries of what the others said since its last: each missed
   * message ("full"), one line each ("names"), or nothing ("off"); defaults measured (docs/protocol.md §11).
   */
  catch_up: z.enum(CATCH_UP_MODES).default('full'),
  /** Pause a conversation that goes in circles (on by default; false: off). */
  loop_guard: z.union([z.boolean(), LoopGuardSchema]).default(true),
  closing: ClosingSchema.optional(),
  catch_up_max_bytes: z.int().min(512).max(1_048_576).default(CATCH_UP_MAX_BYTES),
  catch_up_message_max_bytes: z.int().min(128).max(1_048_576).default(CATCH_UP_MESSAGE_MAX_BYTES),
});

const InboxSchema = z.strictObject({
  max_bytes: z.int().min(1).default(1_048_576),
  settle_ms: z.int().min(0).max(600_000).default(1000),
});

const DeliverySchema = z.strictObject({
  /** Unset: each agent's kind decides (kinds.ts). */
  enter_delay_ms: z.int().min(0).max(60_000).optional(),
  template: z
    .string()
    .refine((t) => t.includes('{content}'), 'the template must contain {content}')
    .refine(
      (t) => /^[^\s/!{]/.test(t) || t.startsWith('{header}'),
      'the template must start with {header} or with text that is not "/", "!" or a space (agent TUIs run those as commands)',
    )
    .optional(),
});

const notifyEvents = z.array(z.enum(NOTIFY_EVENTS));
const httpUrl = z
  .string()
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'an http:// or https:// URL');

/**
 * One sink of `notify` (docs/reference.md): one of `webhook`, `ntfy`, `command`, and that kind's keys. Not a union:
 * its error for a mistyped key is "invalid input" for the whole entry; this names the key (`notify.0.secet`).
 */
const NotifySinkSchema = z
  .strictObject({
    webhook: httpUrl.optional(),
    ntfy: httpUrl.optional(),
    command: z.array(z.string().min(1)).min(1).optional(),
    /** webhook: sign each body with HMAC-SHA256 (the X-Baton-Signature header). */
    secret: z.string().min(1).optional(),
    /** ntfy: an access token (Authorization: Bearer) for a server that needs one. */
    token: z.string().min(1).optional(),
    /** ntfy: where a tap on the notification leads (default: the dashboard, when one runs). */
    click: httpUrl.optional(),
    /** How long one attempt may take: a command is killed, a request abandoned (and retried). */
    timeout_s: z.number().min(1).max(300).default(10),
    /** A name for `status` and `notify --test` (default: the kind and its place in the list). */
    name: z.string().min(1).max(64).optional(),
    events: notifyEvents.min(1).default([...NOTIFY_EVENTS]),
    /** How long repeats of one event for one agent fold into the next notification (docs/protocol.md §12). */
    cooldown_s: z.number().min(0).default(300),
  })
  .superRefine((s, ctx) => {
    const kinds = (['webhook', 'ntfy', 'command'] as const).filter((k) => s[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? 'a sink needs one of "webhook": URL, "ntfy": URL or "command": [ARGV]'
            : `a sink is one of webhook, ntfy, command, not ${kinds.join(' and ')}`,
      });
      return;
    }
    if (s.ntfy !== undefined && !ntfyTarget(s.ntfy))
      ctx.addIssue({
        code: 'custom',
        path: ['ntfy'],
        message: 'an ntfy URL ends with its topic: https://ntfy.sh/TOPIC',
      });
    const only: Record<string, string> = { secret: 'webhook', token: 'ntfy', click: 'ntfy' };
    for (const [key, kind] of Object.entries(only))
      if (s[key as keyof typeof s] !== undefined && kind !== kinds[0])
        ctx.addIssue({ code: 'custom', path: [key], message: `only a ${kind} sink takes "${key}"` });
  });

export const ConfigFileSchema = z.strictObject({
  message_dir: z.string().min(1).default('./messages'),
  agents: z.record(agentName, AgentSchema).optional(),
  directions: z.record(folderName, z.tuple([agentName, agentName])).optional(),
  first_turn: agentName.optional(),
  turns: TurnsSchema.prefault({}),
  inbox: InboxSchema.prefault({}),
  delivery: DeliverySchema.prefault({}),
  bus: BusSchema.prefault({}),
  /** Who is told when a person is needed or it is over (docs/protocol.md §12). */
  notify: z.array(NotifySinkSchema).max(20).default([]),
  /** Prices per model, over the table baton ships (a model named here replaces its row, or adds one). */
  pricing: z.record(z.string().min(1).max(200), PriceSchema).default({}),
  // The original tool's keys: folder names for claude1 → claude2 and back.
  c1_to_c2: folderName.optional(),
  c2_to_c1: folderName.optional(),
});

export type ConfigFile = z.infer<typeof ConfigFileSchema>;
export type AgentKind = (typeof AGENT_KINDS)[number];
export type TurnsConfig = z.infer<typeof TurnsSchema>;
export type InboxConfig = z.infer<typeof InboxSchema>;
export type DeliveryConfig = z.infer<typeof DeliverySchema>;
export type NotifySinkConfig = z.infer<typeof NotifySinkSchema>;
