-- An instance's tags: labels in the order the registrant gave them, as Consul clients
-- (Spring Cloud Consul, Traefik, consul-template) attach them. The rule the border
-- checks (instance/Tags) is repeated here, so nothing can store anything else: at most
-- 32, each 1 to 128 characters without control characters, no two alike, no nulls. A
-- tag is only a label: a weight lives in the weight column and nowhere else.
CREATE FUNCTION ballast_tags_valid(t text[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
$$
SELECT cardinality(t) <= 32
   AND (cardinality(t) = 0 OR array_ndims(t) = 1)
   AND array_position(t, NULL) IS NULL
   AND NOT EXISTS (SELECT 1
                     FROM unnest(t) AS tag
                    WHERE char_length(tag) NOT BETWEEN 1 AND 128
                       OR tag ~ '[\u0001-\u001f\u007f-\u009f]')
   AND (SELECT count(DISTINCT tag) FROM unnest(t) AS tag) = cardinality(t)
$$;

ALTER TABLE instance
    ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
    ADD CONSTRAINT instance_tags_valid CHECK (ballast_tags_valid(tags));
