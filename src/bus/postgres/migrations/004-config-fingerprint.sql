-- Migration 4: what every machine of a conversation must agree on (src/config/fingerprint.ts: its agents and
-- their machines, directions, first turn, turn rules, message size), as the first daemon to start recorded it,
-- with the machine that did and when. A machine joining with a config that differs is refused, naming the keys.
ALTER TABLE :"schema".conversations ADD COLUMN config jsonb;
ALTER TABLE :"schema".conversations ADD COLUMN config_host text;
ALTER TABLE :"schema".conversations ADD COLUMN config_at timestamptz;
