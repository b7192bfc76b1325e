-- The guard's budget as a count of instances (maxUnroutable "1"); NULL keeps the
-- percent of max_unroutable_percent ("25%"), which also limits traffic shifts.
ALTER TABLE service ADD COLUMN max_unroutable_count integer
    CHECK (max_unroutable_count BETWEEN 0 AND 10000);

-- A scope's capacity before something took part of it away (CapacityPeak): the guard
-- counts the scope against it until the window ends, so that a weight lowered, an
-- instance moved out of a zone or deregistered cannot lower the base the next action is
-- counted against. Written and read under the service's row lock.
CREATE TABLE capacity_peak (
    service  text        NOT NULL REFERENCES service (name) ON DELETE CASCADE,
    scope    text        NOT NULL CHECK (scope = 'service' OR scope LIKE 'zone %'),
    capacity bigint      NOT NULL CHECK (capacity >= 0),
    until    timestamptz NOT NULL,
    cause    text        NOT NULL CHECK (length(cause) <= 512)
);
CREATE INDEX capacity_peak_service ON capacity_peak (service, scope);
