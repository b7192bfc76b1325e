-- A reader token may be scoped to services too: it then reads only those (an xDS client
-- or a balancer that must see one service and nothing else). A registrant is still always
-- scoped, an operator or admin never. The constraint replaced is V6's unnamed first
-- table check, which PostgreSQL named token_check.
ALTER TABLE token DROP CONSTRAINT token_check;
ALTER TABLE token ADD CONSTRAINT token_scope CHECK (
    CASE role
        WHEN 'registrant' THEN cardinality(services) > 0
        WHEN 'reader' THEN true
        ELSE cardinality(services) = 0
    END);
