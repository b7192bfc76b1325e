-- Health checks the registry runs against an instance (CheckDefinition), registered with
-- it and removed with it. The foreign key is deferred because a grouped registration
-- writes its instance row when the group's batch is flushed, after the check rows.
CREATE TABLE health_check (
    service                  text        NOT NULL,
    instance_id              text        NOT NULL,
    position                 smallint    NOT NULL CHECK (position BETWEEN 0 AND 7),
    kind                     text        NOT NULL CHECK (kind IN ('HTTP', 'TCP', 'GRPC')),
    target                   text        NOT NULL CHECK (length(target) BETWEEN 1 AND 2048),
    grpc_service             text        NOT NULL DEFAULT '' CHECK (length(grpc_service) <= 200),
    method                   text        NOT NULL DEFAULT '' CHECK (method IN ('', 'GET', 'HEAD')),
    headers                  text[]      NOT NULL DEFAULT '{}',
    tls_skip_verify          boolean     NOT NULL DEFAULT false,
    interval_ms              integer     NOT NULL CHECK (interval_ms BETWEEN 1000 AND 3600000),
    timeout_ms               integer     NOT NULL CHECK (timeout_ms >= 100 AND timeout_ms < interval_ms),
    failures_before_critical smallint    NOT NULL CHECK (failures_before_critical BETWEEN 1 AND 10),
    success_before_passing   smallint    NOT NULL CHECK (success_before_passing BETWEEN 1 AND 10),
    deregister_after_ms      bigint      CHECK (deregister_after_ms >= 60000),
    -- Whether the check keeps the instance's lease (it registered no lease of its own).
    keeps_lease              boolean     NOT NULL,
    status                   text        NOT NULL DEFAULT 'passing'
                             CHECK (status IN ('passing', 'warning', 'critical')),
    output                   text        NOT NULL DEFAULT '' CHECK (length(output) <= 4096),
    status_since             timestamptz NOT NULL,
    PRIMARY KEY (service, instance_id, position),
    FOREIGN KEY (service, instance_id) REFERENCES instance (service, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- The nodes that run checks: each says it is alive every membership interval, and the
-- checks are shared among those seen lately (ProbeOwners).
CREATE TABLE prober (
    node    text        PRIMARY KEY CHECK (length(node) BETWEEN 1 AND 200),
    seen_at timestamptz NOT NULL
);
