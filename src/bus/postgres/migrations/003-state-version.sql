-- Migration 3: the state's version, one more at every write of it: a turn step decided on the state a daemon
-- read commits in one statement only if the stored version is still the one read (turn-step.ts).
ALTER TABLE :"schema".conversations ADD COLUMN version bigint NOT NULL DEFAULT 0;
