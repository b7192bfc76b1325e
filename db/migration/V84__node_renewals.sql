-- The lease writer position joins the node table (V83) as a fact of its own, and the
-- lease_writer table goes: how far a node wrote the heartbeats it absorbed
-- (renewals_through, by the node's own clock, like the leases it judges). A node that
-- stops cleanly, or is forgotten as gone, no longer states it (null).
--
-- lease_writer's node had no length rule; node's has (1..200, as prober's had). Its ids
-- are ThisNode's, the ones the same node probes under (pid@host/uuid; Linux caps a host
-- name at 64 characters, so about 112 in all), and fit. Should a longer one be there, it is
-- cut to 200, keeping the earliest position of the ids that meet there (the sweep then
-- holds back more, never less), and is forgotten once silent for the grace like any other.
ALTER TABLE node ADD COLUMN renewals_through timestamptz;

INSERT INTO node (node, renewals_through)
SELECT left(node, 200), min(renewals_through) FROM lease_writer WHERE node <> '' GROUP BY left(node, 200)
ON CONFLICT (node) DO UPDATE SET renewals_through = EXCLUDED.renewals_through;

DROP TABLE lease_writer;
