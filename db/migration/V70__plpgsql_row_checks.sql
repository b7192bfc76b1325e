-- The metadata and tags rules of V1 and V20, unchanged, in PL/pgSQL. As SQL functions
-- with subqueries they could not be inlined, so PostgreSQL parsed and planned both bodies
-- again in every statement that wrote an instance row: about 200 µs per row, the largest
-- part of a registration's time in the database. PL/pgSQL keeps its plans for the
-- session, and these bodies use only simple expressions, which it evaluates without the
-- executor; an empty object or array, what most registrations carry, returns at once.
-- The CHECK constraints that call them stay as they are.

CREATE OR REPLACE FUNCTION ballast_metadata_valid(m jsonb) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$
DECLARE
    keys jsonb;
    k    text;
BEGIN
    IF jsonb_typeof(m) <> 'object' THEN
        RETURN false;
    END IF;
    IF m = '{}'::jsonb THEN
        RETURN true;
    END IF;
    keys := jsonb_path_query_array(m, '$.keyvalue().key');
    FOR i IN 0 .. jsonb_array_length(keys) - 1 LOOP
        k := keys ->> i;
        IF lower(k) = 'weight' OR lower(k) LIKE 'ballast.%' OR jsonb_typeof(m -> k) <> 'string' THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION ballast_tags_valid(t text[]) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS
$$
BEGIN
    IF cardinality(t) = 0 THEN
        RETURN true;
    END IF;
    IF cardinality(t) > 32 OR array_ndims(t) <> 1 OR array_position(t, NULL) IS NOT NULL THEN
        RETURN false;
    END IF;
    -- Subscripts as the array has them (they need not start at 1); a tag found again
    -- after its own place is a duplicate.
    FOR i IN array_lower(t, 1) .. array_upper(t, 1) LOOP
        IF char_length(t[i]) NOT BETWEEN 1 AND 128 OR t[i] ~ '[\u0001-\u001f\u007f-\u009f]'
           OR array_position(t, t[i], i + 1) IS NOT NULL THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN true;
END
$$;
