-- What each subscriber follows a service by (an SSE stream, blocking queries, an xDS
-- stream), the zone whose view it asked for, and, for an xDS client, the last response
-- it refused (NACK): the revision it carried, the client's error, and when. A row
-- written by an older node, or by an acknowledgement alone, has no protocol yet.
ALTER TABLE subscriber
    ADD COLUMN protocol text CHECK (protocol IN ('sse', 'poll', 'xds')),
    ADD COLUMN zone text CHECK (length(zone) BETWEEN 1 AND 128),
    ADD COLUMN nack_revision bigint CHECK (nack_revision >= 0),
    ADD COLUMN nack_detail text CHECK (length(nack_detail) <= 1024),
    ADD COLUMN nack_at timestamptz,
    ADD CHECK ((nack_at IS NULL) = (nack_revision IS NULL) AND (nack_at IS NULL) = (nack_detail IS NULL));
