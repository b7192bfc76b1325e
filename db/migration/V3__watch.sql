-- Watch subscribers: the balancers that follow a service and what they have applied.
-- A drain is complete only when every live subscriber has acknowledged a revision at or
-- after the one where the instance's weight became 0, so these rows are shared by every
-- node: a subscriber connected to one node is seen by the node that runs the drain.
CREATE TABLE subscriber (
    service            text        NOT NULL REFERENCES service (name) ON DELETE CASCADE,
    name               text        NOT NULL CHECK (name ~ '^[A-Za-z0-9._:-]{1,128}$'),
    delivered_revision bigint      NOT NULL DEFAULT 0 CHECK (delivered_revision >= 0),
    acked_revision     bigint      NOT NULL DEFAULT 0 CHECK (acked_revision >= 0),
    first_seen_at      timestamptz NOT NULL,
    last_seen_at       timestamptz NOT NULL,
    PRIMARY KEY (service, name)
);

CREATE INDEX subscriber_last_seen_at ON subscriber (last_seen_at);
