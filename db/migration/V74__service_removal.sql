-- Services removed with DELETE /v1/services/{service}, each with the last revision it
-- reached (that of its final delete event). A service registered again under the name
-- continues from there, and so does the empty state a watcher of the name sees while it
-- is not registered, so that a revision (an event id, an index) never stands for two
-- different changes of one name, however long a client stayed away. One row per name,
-- replaced when the name is removed again, and kept: it is what keeps the promise.
CREATE TABLE removed_service (
    name       text        PRIMARY KEY CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
    revision   bigint      NOT NULL CHECK (revision > 0),
    removed_at timestamptz NOT NULL
);

-- A service's removal is the last row of its change log: watchers get a delete event.
-- Like a settings change it concerns no instance.
ALTER TABLE change_log DROP CONSTRAINT change_log_kind_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_kind_check
    CHECK (kind IN ('UPSERT', 'REMOVE', 'SERVICE', 'DELETE'));
ALTER TABLE change_log DROP CONSTRAINT change_log_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_check
    CHECK (kind IN ('SERVICE', 'DELETE') OR instance_id IS NOT NULL);
