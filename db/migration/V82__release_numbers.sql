-- A release's id is counted per service: a service's first release is release 1, whatever
-- other services did. The releases made before keep the ids they were given (each was
-- already unique within its service), so every path a client kept still names the same
-- release; a service's next release takes the next number after its highest. The global
-- key stays as the row's identity and is shown nowhere.
ALTER TABLE release ADD COLUMN number bigint;
UPDATE release SET number = id;
ALTER TABLE release ALTER COLUMN number SET NOT NULL;
ALTER TABLE release ADD CONSTRAINT release_number_positive CHECK (number >= 1);
CREATE UNIQUE INDEX release_number ON release (service, number);
