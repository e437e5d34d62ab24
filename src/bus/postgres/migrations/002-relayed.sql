-- Migration 2: relay keys outlive their waiting rows. A relay killed after its insert committed but before it
-- removed the file finds the file again at the next start; if the message was delivered meanwhile (its
-- waiting row gone), the unique key on waiting alone let it be stored — and typed — a second time.
CREATE TABLE :"schema".relayed (
  relay_key text PRIMARY KEY,
  conversation text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO :"schema".relayed (relay_key, conversation) SELECT relay_key, conversation FROM :"schema".waiting WHERE relay_key IS NOT NULL;
