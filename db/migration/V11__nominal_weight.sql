-- The weight the guard counts an instance with (NominalWeight): its configured weight,
-- or its last positive weight while an operator or a registrant holds it at 0, so that a
-- weight edit to 0 takes weight away as visibly as a drain does.
ALTER TABLE instance ADD COLUMN nominal_weight integer;
UPDATE instance SET nominal_weight = weight;
ALTER TABLE instance
    ALTER COLUMN nominal_weight SET NOT NULL,
    ADD CONSTRAINT instance_nominal_weight_range CHECK (nominal_weight BETWEEN 0 AND 10000);
