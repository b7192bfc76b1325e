-- A service's locality policy (LocalityPolicy): how a balancer in one zone shares its
-- traffic with other zones. Both columns null is the flat view, the default; a mode
-- always comes with its cap, so that no stored policy can cross zones without one.
ALTER TABLE service
    ADD COLUMN locality_mode text CHECK (locality_mode IN ('PREFER_LOCAL')),
    ADD COLUMN locality_max_cross_zone_percent smallint
        CHECK (locality_max_cross_zone_percent BETWEEN 0 AND 100),
    ADD CONSTRAINT service_locality_check
        CHECK ((locality_mode IS NULL) = (locality_max_cross_zone_percent IS NULL));
