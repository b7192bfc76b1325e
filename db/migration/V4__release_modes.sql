-- Release modes. Why an instance is in its mode and until when (maintenance), and the
-- subscribers that never confirmed a drain before its confirmation timed out.
ALTER TABLE instance
    ADD COLUMN mode_reason text CHECK (length(mode_reason) <= 512),
    ADD COLUMN mode_until timestamptz,
    ADD COLUMN unconfirmed_subscribers text[];

-- The durable work of the mode scheduler: ramp steps, drain confirmations and the end of
-- maintenance windows. A row is due at due_at; one node at a time takes due rows with
-- FOR UPDATE SKIP LOCKED, applies them and moves or deletes them in the same transaction,
-- so a drain started before a restart continues after it and no step is applied twice.
CREATE TABLE mode_schedule (
    service          text        NOT NULL,
    instance_id      text        NOT NULL,
    kind             text        NOT NULL CHECK (kind IN ('DRAIN', 'WARM', 'CONFIRM', 'END_MAINTENANCE')),
    ramp_from        integer     NOT NULL CHECK (ramp_from BETWEEN 0 AND 10000),
    started_at       timestamptz NOT NULL,
    duration_ms      bigint      NOT NULL CHECK (duration_ms >= 0),
    step_ms          bigint      NOT NULL CHECK (step_ms > 0),
    zero_revision    bigint,
    confirm_deadline timestamptz,
    -- The subscribers that were live when the weight reached 0: each must confirm, even
    -- one that goes silent and is dropped meanwhile (it is then listed as unconfirmed).
    awaiting         text[],
    due_at           timestamptz NOT NULL,
    PRIMARY KEY (service, instance_id),
    FOREIGN KEY (service, instance_id) REFERENCES instance (service, id) ON DELETE CASCADE,
    CHECK (kind <> 'CONFIRM' OR (zero_revision IS NOT NULL AND confirm_deadline IS NOT NULL))
);

CREATE INDEX mode_schedule_due_at ON mode_schedule (due_at);

-- Operator weight edits with an end: at until the registry puts the weight back to
-- revert_to by itself. One per instance; a later weight edit replaces or clears it.
CREATE TABLE weight_override (
    service     text        NOT NULL,
    instance_id text        NOT NULL,
    revert_to   integer     NOT NULL CHECK (revert_to BETWEEN 0 AND 10000),
    until       timestamptz NOT NULL,
    PRIMARY KEY (service, instance_id),
    FOREIGN KEY (service, instance_id) REFERENCES instance (service, id) ON DELETE CASCADE
);

CREATE INDEX weight_override_until ON weight_override (until);
