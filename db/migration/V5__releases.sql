-- Traffic shifts between two groups of a service's instances (blue/green, canary). The
-- configured weights of both groups before the release are kept, so an abort restores
-- them exactly; one release per service may be under way.
CREATE TABLE release (
    id                    bigserial   PRIMARY KEY,
    service               text        NOT NULL REFERENCES service (name) ON DELETE CASCADE,
    from_selector         jsonb       NOT NULL CHECK (ballast_metadata_valid(from_selector)),
    to_selector           jsonb       NOT NULL CHECK (ballast_metadata_valid(to_selector)),
    from_ids              text[]      NOT NULL,
    to_ids                text[]      NOT NULL,
    original              jsonb       NOT NULL,
    total_weight          bigint      NOT NULL CHECK (total_weight >= 0),
    steps                 integer[]   NOT NULL,
    step_interval_seconds integer     NOT NULL CHECK (step_interval_seconds BETWEEN 0 AND 86400),
    step                  integer     NOT NULL CHECK (step >= 0),
    state                 text        NOT NULL CHECK (state IN ('ACTIVE', 'PAUSED', 'COMPLETED', 'ABORTED')),
    state_reason          text,
    next_step_at          timestamptz,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL
);

CREATE UNIQUE INDEX release_one_under_way ON release (service) WHERE state IN ('ACTIVE', 'PAUSED');
CREATE INDEX release_next_step_at ON release (next_step_at) WHERE state = 'ACTIVE';

-- Answers to POSTs sent with an Idempotency-Key, replayed when the same request comes
-- again (a client retrying after a lost answer), kept for a day.
CREATE TABLE idempotent_answer (
    key          text        NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    method       text        NOT NULL,
    path         text        NOT NULL,
    request_hash bytea       NOT NULL,
    status       integer     NOT NULL,
    content_type text,
    body         bytea       NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (key, method, path)
);

CREATE INDEX idempotent_answer_created_at ON idempotent_answer (created_at);
