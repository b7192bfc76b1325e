-- Bearer tokens. Only the SHA-256 of a secret is kept: the secret is shown once, at
-- creation, and a copy of this table gives nobody access. A plain hash suffices because
-- secrets are 256 random bits, not passwords that could be guessed.
CREATE TABLE token (
    id                uuid        PRIMARY KEY,
    name              text        NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    role              text        NOT NULL CHECK (role IN ('reader', 'registrant', 'operator', 'admin')),
    -- Only a registrant is scoped, and it always is: to these service-name patterns.
    services          text[]      NOT NULL DEFAULT '{}',
    writes_per_second integer     CHECK (writes_per_second BETWEEN 1 AND 1000000),
    secret_sha256     bytea       NOT NULL UNIQUE CHECK (octet_length(secret_sha256) = 32),
    created_at        timestamptz NOT NULL,
    expires_at        timestamptz,
    CHECK ((role = 'registrant') = (cardinality(services) > 0)),
    CHECK (expires_at IS NULL OR expires_at > created_at)
);
