-- Each node that absorbs heartbeats says up to when it has written them. A node cut off
-- from the database while its clients still reach it keeps answering heartbeats that
-- no other node can see; the sweep judges no lease later than the moment through which
-- such a silent node wrote its renewals, until ballast.lease.silent-node-grace has passed
-- since (then the node counts as gone, as one killed does). A node that stops cleanly
-- deletes its row after its last flush. Times are the nodes' own clocks, like the leases'.
CREATE TABLE lease_writer (
    node text PRIMARY KEY,
    renewals_through timestamptz NOT NULL
);
