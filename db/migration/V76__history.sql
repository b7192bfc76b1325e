-- The histories of the database. A standby promoted to primary begins a new timeline,
-- and after an asynchronous failover it may lack the last commits of the old primary:
-- it then hands out their revisions again, for other changes. Each change-log row is
-- stamped with the history it was committed in, and a watch position (an event id)
-- carries that stamp, so that a position the database no longer holds is told apart
-- from one it does and no event id ever stands for two different changes.
--
-- A history is a (system identifier, timeline) pair: a promotion changes the timeline, a
-- restore into a new cluster the system identifier. Its id is random, so that two
-- standbys promoted apart onto the same timeline number (neither having seen the other's
-- row) still get different ids. The history this migration runs in gets id 0, which event
-- ids leave out: they keep their plain form until the first failover.
CREATE TABLE history (
    id                bigint      PRIMARY KEY CHECK (id BETWEEN 0 AND 4294967295),
    system_identifier bigint      NOT NULL,
    timeline          integer     NOT NULL CHECK (timeline > 0),
    began_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (system_identifier, timeline)
);

-- The timeline WAL is written on now (the first 8 hex digits of the current WAL file's
-- name); only a primary has one, and only a primary is written to.
CREATE FUNCTION ballast_timeline() RETURNS integer LANGUAGE sql VOLATILE AS $$
    SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer
$$;

INSERT INTO history (id, system_identifier, timeline)
SELECT 0, system_identifier, ballast_timeline() FROM pg_control_system();

-- The id of the history this session writes in, created on its first write. A session
-- keeps its server, and a server's timeline changes only when a standby is promoted
-- (sessions of a primary never see it change), so the id is kept in a session setting
-- after the first call: stamping a change costs a setting's lookup.
CREATE FUNCTION ballast_history() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    known text := current_setting('ballast.history', true);
    system bigint;
    line integer;
    found bigint;
BEGIN
    IF known IS NOT NULL AND known <> '' THEN
        RETURN known::bigint;
    END IF;
    SELECT system_identifier INTO system FROM pg_control_system();
    line := ballast_timeline();
    -- Bounded: in a transaction whose snapshot is older than another session's insert
    -- of this history, the insert finds it and the read does not.
    FOR attempt IN 1..3 LOOP
        SELECT id INTO found FROM history WHERE system_identifier = system AND timeline = line;
        EXIT WHEN found IS NOT NULL;
        -- A new history's id: 32 random bits, never 0. One taken already (a chance of
        -- one in four billion) or a history inserted meanwhile by another session is
        -- left alone, and the loop reads again.
        INSERT INTO history (id, system_identifier, timeline)
        VALUES (1 + ('x' || substr(md5(gen_random_uuid()::text), 1, 8))::bit(32)::bigint % 4294967295, system, line)
        ON CONFLICT DO NOTHING;
    END LOOP;
    IF found IS NULL THEN
        RAISE EXCEPTION 'the history of timeline % was created by another session after this one''s snapshot', line
            USING ERRCODE = 'serialization_failure';
    END IF;
    PERFORM set_config('ballast.history', found::text, false);
    RETURN found;
END
$$;

-- Rows logged before this migration belong to the history it runs in.
ALTER TABLE change_log ADD COLUMN history bigint NOT NULL DEFAULT 0;
ALTER TABLE change_log ALTER COLUMN history SET DEFAULT ballast_history();
