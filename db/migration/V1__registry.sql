-- The registry's state. Every rule that keeps a weight an integer in range is
-- repeated here so that no code path, migration or hand-written SQL can store
-- anything else.

CREATE TABLE service (
    name                   text        PRIMARY KEY
                           CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
    weight_policy          text        NOT NULL DEFAULT 'STRICT'
                           CHECK (weight_policy IN ('STRICT', 'NORMALIZE')),
    default_weight         integer     NOT NULL DEFAULT 100
                           CHECK (default_weight BETWEEN 0 AND 10000),
    lease_ttl_seconds      integer     NOT NULL DEFAULT 30
                           CHECK (lease_ttl_seconds BETWEEN 5 AND 300),
    max_unroutable_percent integer     NOT NULL DEFAULT 25
                           CHECK (max_unroutable_percent BETWEEN 0 AND 100),
    max_ejection_percent   integer     NOT NULL DEFAULT 20
                           CHECK (max_ejection_percent BETWEEN 0 AND 100),
    revision               bigint      NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);

-- A CHECK constraint may not hold a subquery, so the metadata rule lives in an
-- immutable function: a flat object of strings, no key "weight" in any case and
-- nothing under the reserved "ballast." prefix.
CREATE FUNCTION ballast_metadata_valid(m jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$
SELECT jsonb_typeof(m) = 'object'
   AND NOT EXISTS (SELECT 1
                     FROM jsonb_each(m) AS e(key, value)
                    WHERE lower(e.key) = 'weight'
                       OR lower(e.key) LIKE 'ballast.%'
                       OR jsonb_typeof(e.value) <> 'string')
$$;

CREATE TABLE instance (
    service           text        NOT NULL REFERENCES service (name) ON DELETE CASCADE,
    id                text        NOT NULL CHECK (id ~ '^[A-Za-z0-9._:-]{1,128}$'),
    address           text        NOT NULL CHECK (length(address) BETWEEN 1 AND 253),
    port              integer     NOT NULL CHECK (port BETWEEN 1 AND 65535),
    zone              text        CHECK (zone ~ '^[A-Za-z0-9._-]{1,63}$'),
    weight            integer     NOT NULL CHECK (weight BETWEEN 0 AND 10000),
    effective_weight  integer     NOT NULL CHECK (effective_weight BETWEEN 0 AND 10000),
    mode              text        NOT NULL DEFAULT 'SERVING'
                      CHECK (mode IN ('SERVING', 'WARMING', 'DRAINING', 'DRAINED', 'MAINTENANCE')),
    health            text        NOT NULL DEFAULT 'PASSING'
                      CHECK (health IN ('PASSING', 'CRITICAL')),
    metadata          jsonb       NOT NULL DEFAULT '{}'::jsonb
                      CHECK (ballast_metadata_valid(metadata)),
    lease_ttl_seconds integer     NOT NULL CHECK (lease_ttl_seconds BETWEEN 5 AND 300),
    last_renewed_at   timestamptz NOT NULL,
    registered_at     timestamptz NOT NULL,
    revision          bigint      NOT NULL CHECK (revision > 0),
    PRIMARY KEY (service, id)
);

-- One row per revision of a service, written in the transaction that made the
-- change. Payloads are the exact records that clients receive, so their weights
-- are checked to be JSON integers in range here as well.
CREATE TABLE change_log (
    service     text        NOT NULL,
    revision    bigint      NOT NULL CHECK (revision > 0),
    kind        text        NOT NULL CHECK (kind IN ('UPSERT', 'REMOVE', 'SERVICE')),
    instance_id text,
    payload     jsonb       NOT NULL,
    changed_at  timestamptz NOT NULL,
    PRIMARY KEY (service, revision),
    CHECK (kind = 'SERVICE' OR instance_id IS NOT NULL),
    CHECK (kind <> 'UPSERT'
           OR (jsonb_typeof(payload -> 'weight') = 'number'
               AND jsonb_typeof(payload -> 'effectiveWeight') = 'number'
               AND payload ->> 'weight' ~ '^(0|[1-9][0-9]{0,3}|10000)$'
               AND payload ->> 'effectiveWeight' ~ '^(0|[1-9][0-9]{0,3}|10000)$'))
);

CREATE INDEX change_log_changed_at ON change_log (changed_at);
