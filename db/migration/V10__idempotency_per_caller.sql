-- An Idempotency-Key belongs to the caller that sent it: the same key from another token
-- is another request, and never replays the first caller's answer.
ALTER TABLE idempotent_answer ADD COLUMN caller text NOT NULL DEFAULT '';
ALTER TABLE idempotent_answer DROP CONSTRAINT idempotent_answer_pkey;
ALTER TABLE idempotent_answer ADD PRIMARY KEY (caller, key, method, path);
