-- Why a CRITICAL instance is critical, kept with it, so that every reader shows the one
-- recorded cause instead of guessing it from the lease's times (a failing check renews
-- the lease of an instance whose checks keep it, so "critical" with a current lease is
-- not a lease expiry). A PASSING instance has none; a CRITICAL one always has one.
ALTER TABLE instance ADD COLUMN critical_reason text
    CHECK (critical_reason IN ('lease-expired', 'check-failing', 'reported-critical'));

-- The instances critical before this: a critical check the registry runs is the cause if
-- there is one, else a lease that ran out, else the instance's own report.
UPDATE instance AS i
   SET critical_reason = CASE
         WHEN EXISTS (SELECT 1 FROM health_check c
                       WHERE c.service = i.service AND c.instance_id = i.id AND c.status = 'critical')
           THEN 'check-failing'
         WHEN i.last_renewed_at + make_interval(secs => i.lease_ttl_seconds) <= now() THEN 'lease-expired'
         ELSE 'reported-critical'
       END
 WHERE i.health = 'CRITICAL';

ALTER TABLE instance ADD CONSTRAINT instance_critical_has_reason
    CHECK ((health = 'CRITICAL') = (critical_reason IS NOT NULL));
