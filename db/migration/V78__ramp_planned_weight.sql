-- The configured weight a ramp was planned toward (a warm-up) or from (a drain). When an
-- edit changes the configured weight during the ramp, the next step sees it differ and
-- plans the ramp again from the effective weight of the moment over the time it had left,
-- so the effective weight moves monotonically toward the new target and never passes it.
-- NULL on rows written before it: such a ramp goes on as planned.
ALTER TABLE mode_schedule
    ADD COLUMN planned_weight integer CHECK (planned_weight BETWEEN 0 AND 10000);
