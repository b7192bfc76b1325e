-- The audit log: one row per accepted mutation, written in the transaction of the write
-- itself, so an acknowledged write always has its row and a refused one has none.
-- service is null only for actions that concern no service.
CREATE TABLE audit_event (
    id             bigserial   PRIMARY KEY,
    at             timestamptz NOT NULL,
    token_id       text        NOT NULL,
    token_name     text        NOT NULL,
    action         text        NOT NULL,
    service        text,
    instance       text,
    before         jsonb,
    after          jsonb,
    normalizations text[]      NOT NULL DEFAULT '{}',
    forced         boolean     NOT NULL DEFAULT false,
    request_id     text,
    details        jsonb
);

-- GET /v1/audit reads newest first (by id) within a service, or an instance, or
-- everything; retention deletes by time.
CREATE INDEX audit_event_service ON audit_event (service, id);
CREATE INDEX audit_event_instance ON audit_event (instance, id) WHERE instance IS NOT NULL;
CREATE INDEX audit_event_at ON audit_event (at);

-- Append-only. A trigger rather than REVOKE: the registry connects as the table's owner
-- (the embedded server even as superuser), and owners are not bound by privileges, but
-- they are by triggers. UPDATE and TRUNCATE are always refused; DELETE only inside a
-- transaction that declared itself the retention job with
-- SET LOCAL ballast.audit_retention = 'on'. Deployments with a separate application role
-- can REVOKE UPDATE, DELETE, TRUNCATE on top.
CREATE FUNCTION ballast_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('ballast.audit_retention', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'audit_event is append-only: % is refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_event_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_event
    FOR EACH STATEMENT EXECUTE FUNCTION ballast_audit_append_only();
