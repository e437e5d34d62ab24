-- Migration 1: baton's first schema. Never edit a migration that shipped: add the next one.
-- :"schema" is the schema's name (bus.schema, default baton), put in by migrate.ts as psql would
-- (psql -v schema=baton).
CREATE TABLE :"schema".conversations (
  name text PRIMARY KEY,
  state jsonb NOT NULL,
  user_counter integer NOT NULL DEFAULT 0,
  gen text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Messages waiting in a direction (status 'waiting') or for a person's approval ('approval').
-- relay_key: the relaying machine's handle for the file it moved in, so a relay cut short is not
-- stored twice.
CREATE TABLE :"schema".waiting (
  seq bigserial PRIMARY KEY,
  conversation text NOT NULL,
  direction text NOT NULL,
  file text,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'waiting',
  relay_key text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX waiting_by_conversation ON :"schema".waiting (conversation, seq);
CREATE TABLE :"schema".archive (
  conversation text NOT NULL,
  id text NOT NULL,
  counter integer NOT NULL,
  person boolean NOT NULL,
  receiver text NOT NULL,
  delivered boolean NOT NULL DEFAULT false,
  request text,
  record jsonb NOT NULL,
  PRIMARY KEY (conversation, id)
);
CREATE TABLE :"schema".rejected (
  seq bigserial PRIMARY KEY,
  conversation text NOT NULL,
  stored_as text NOT NULL,
  file text,
  direction text,
  reason text NOT NULL,
  body text,
  rejected_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE :"schema".requests (
  seq bigserial PRIMARY KEY,
  conversation text NOT NULL,
  name text NOT NULL UNIQUE,
  host text NOT NULL,
  body jsonb NOT NULL,
  taken boolean NOT NULL DEFAULT false,
  reply jsonb,
  answered_at timestamptz
);
CREATE TABLE :"schema".events (
  seq bigserial PRIMARY KEY,
  conversation text NOT NULL,
  body jsonb NOT NULL
);
CREATE INDEX events_by_conversation ON :"schema".events (conversation, seq);
CREATE TABLE :"schema".leases (
  conversation text NOT NULL,
  host text NOT NULL,
  holder jsonb NOT NULL,
  generation bigint NOT NULL,
  backend_pid integer,
  heartbeat_at timestamptz NOT NULL,
  released boolean NOT NULL DEFAULT false,
  PRIMARY KEY (conversation, host)
);
