-- One table for every fact a node states about itself, a row per node (ThisNode's id),
-- replacing a table per fact. A fact a node no longer states is null, and a row that
-- states none is deleted. First fact: when the node last said it probes (was the
-- prober table), by the database's clock: the checks are shared among the nodes seen
-- lately (ProbeOwners). The lease writer position (lease_writer.renewals_through) is to
-- join it as a column of its own once the lease module writes it here.
CREATE TABLE node (
    node    text        PRIMARY KEY CHECK (length(node) BETWEEN 1 AND 200),
    seen_at timestamptz
);

INSERT INTO node (node, seen_at) SELECT node, seen_at FROM prober;

DROP TABLE prober;
