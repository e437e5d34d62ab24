/**
 * A conversation's row — its state and the state's version, the person-message counter, the event log's
 * generation — and the notifications that say it changed. `s` is the schema, quoted.
 */
import { statement } from './bind.js';
import type { Json } from './codec.js';

type Conversation = { conversation: string };

/**
 * Every table whose rows belong to one generation of a conversation: what setting it aside renames. Not
 * `leases`: a machine's lease is of the name, across generations (store.ts setAside).
 */
const TABLES = ['waiting', 'archive', 'rejected', 'requests', 'events', 'relayed'] as const;

export const conversationsSql = (s: string) => ({
  /** Made with its first state, unless it exists. */
  ensure: statement<Conversation & { state: Json; gen: string }>(
    'conversations.ensure',
    `INSERT INTO ${s}.conversations (name, state, gen) VALUES (:conversation, :state, :gen) ON CONFLICT (name) DO NOTHING`,
  ),
  state: statement<Conversation, { state: unknown }>(
    'conversations.state',
    `SELECT state FROM ${s}.conversations WHERE name = :conversation`,
  ),
  /** Inside a write transaction: the state, its row locked until the commit. */
  lockState: statement<Conversation, { state: unknown }>(
    'conversations.lockState',
    `SELECT state FROM ${s}.conversations WHERE name = :conversation FOR UPDATE`,
  ),
  saveState: statement<Conversation & { state: Json }>(
    'conversations.saveState',
    `UPDATE ${s}.conversations SET state = :state, version = version + 1 WHERE name = :conversation`,
  ),
  gen: statement<Conversation, { gen: string }>(
    'conversations.gen',
    `SELECT gen FROM ${s}.conversations WHERE name = :conversation`,
  ),
  /**
   * Inside a transaction: the config fingerprint recorded for it (config/fingerprint.ts), by which machine
   * and when, its row locked (machines joining at once agree one after the other).
   */
  config: statement<
    Conversation,
    { config: Record<string, unknown> | null; config_host: string | null; config_at: Date | null }
  >(
    'conversations.config',
    `SELECT config, config_host, config_at FROM ${s}.conversations WHERE name = :conversation FOR UPDATE`,
  ),
  recordConfig: statement<Conversation & { config: Json; host: string }>(
    'conversations.recordConfig',
    `UPDATE ${s}.conversations SET config = :config, config_host = :host, config_at = now() WHERE name = :conversation`,
  ),
  notify: statement<{ channel: string; payload: string }>(
    'conversations.notify',
    'SELECT pg_notify(:channel, :payload)',
  ),

  /** Set aside: the conversation's row and every row naming it renamed, in one transaction. */
  rename: statement<{ from: string; to: string }>(
    'conversations.rename',
    `UPDATE ${s}.conversations SET name = :to WHERE name = :from`,
  ),
  renameRows: TABLES.map((t) =>
    statement<{ from: string; to: string }>(
      `conversations.renameRows.${t}`,
      `UPDATE ${s}.${t} SET conversation = :to WHERE conversation = :from`,
    ),
  ),
});
