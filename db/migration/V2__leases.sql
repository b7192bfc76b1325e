-- Lease expiry. An expired instance turns CRITICAL; whether it was also made
-- unroutable is a separate fact, because the ejection cap may hold it routable.
ALTER TABLE instance ADD COLUMN ejected boolean NOT NULL DEFAULT false;
ALTER TABLE instance ADD CONSTRAINT instance_ejected_is_critical CHECK (NOT ejected OR health = 'CRITICAL');

-- When the lease sweeper last ran, on whichever node. A gap longer than the sweep
-- interval means the registry itself was not watching (database unreachable, the
-- sweeping node paused, every node down, the clock jumped): leases are extended by
-- the gap before anything expires, so the registry's own outage never expires the
-- instances that kept trying to renew.
CREATE TABLE lease_sweep (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    last_tick  timestamptz NOT NULL
);
