"""Supersession, derived in the database from INVALIDATED_BY associations (one rule, one home).

Memory A is superseded by B exactly when an association A -[INVALIDATED_BY]-> B exists. Triggers
keep A's `superseded_by` (its earliest replacement by valid_from, then storing order) and
`valid_until` (that replacement's valid_from, never before A's own) in step with the associations,
in the transaction that writes them, whichever way they are written: POST /associate, a store with
`supersedes`, a resolved finding, an automatic decision, the admin, or a delete (of the association
or of the newer memory, whose associations go first). A write of those two columns that disagrees
with the associations (a stale save) is corrected to what the associations say. An association that
would close a cycle (A -> B -> ... -> A) is refused with a check violation naming
`memory_supersession_acyclic`; such writes are serialized per owner, so two racing requests cannot
close one either.
"""

from django.db import migrations

FUNCTIONS = r"""
CREATE FUNCTION memsite_replacement(memory uuid, OUT id uuid, OUT valid_from timestamptz)
LANGUAGE sql VOLATILE AS $$
    SELECT b.id, b.valid_from FROM graph_association e JOIN memories_memory b ON b.id = e.target_id
    WHERE e.source_id = memory AND e.relation_type = 'INVALIDATED_BY'
    ORDER BY b.valid_from, b.sequence LIMIT 1
$$;

-- Before an update that changes a memory's validity columns: they take the values the
-- associations give, whatever the update wrote.
CREATE FUNCTION memsite_memory_validity() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    replacement record;
BEGIN
    SELECT * INTO replacement FROM memsite_replacement(NEW.id);
    NEW.superseded_by_id := replacement.id;
    NEW.valid_until := CASE WHEN replacement.id IS NULL THEN NULL
                            ELSE GREATEST(NEW.valid_from, replacement.valid_from) END;
    RETURN NEW;
END $$;

CREATE FUNCTION memsite_refresh_validity(memory uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    replacement record;
BEGIN
    SELECT * INTO replacement FROM memsite_replacement(memory);
    UPDATE memories_memory a
    SET superseded_by_id = replacement.id,
        valid_until = CASE WHEN replacement.id IS NULL THEN NULL
                           ELSE GREATEST(a.valid_from, replacement.valid_from) END
    WHERE a.id = memory
      AND (a.superseded_by_id IS DISTINCT FROM replacement.id
           OR a.valid_until IS DISTINCT FROM CASE WHEN replacement.id IS NULL THEN NULL
                                                  ELSE GREATEST(a.valid_from, replacement.valid_from) END);
END $$;

CREATE FUNCTION memsite_refuse_supersession_cycle(older uuid, newer uuid) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(7204, (SELECT owner_id FROM memories_memory WHERE id = older));
    IF EXISTS (
        WITH RECURSIVE later(id) AS (
            SELECT newer
            UNION
            SELECT e.target_id FROM graph_association e JOIN later l ON e.source_id = l.id
            WHERE e.relation_type = 'INVALIDATED_BY'
        )
        SELECT 1 FROM later WHERE id = older
    ) THEN
        RAISE EXCEPTION 'Memory % is already superseded by memory % (directly or through a chain), '
                        'so it cannot supersede it', newer, older
            USING ERRCODE = 'check_violation', CONSTRAINT = 'memory_supersession_acyclic';
    END IF;
END $$;

CREATE FUNCTION memsite_sync_supersession() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'DELETE' AND NEW.relation_type = 'INVALIDATED_BY' THEN
        PERFORM memsite_refuse_supersession_cycle(NEW.source_id, NEW.target_id);
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.relation_type = 'INVALIDATED_BY' THEN
        PERFORM memsite_refresh_validity(OLD.source_id);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.relation_type = 'INVALIDATED_BY' THEN
        PERFORM memsite_refresh_validity(NEW.source_id);
    END IF;
    RETURN NULL;
END $$;

-- A memory's valid_from moved: the memories it replaced end when it now begins.
CREATE FUNCTION memsite_sync_valid_from() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM memsite_refresh_validity(e.source_id) FROM graph_association e
    WHERE e.target_id = NEW.id AND e.relation_type = 'INVALIDATED_BY';
    RETURN NULL;
END $$;

CREATE TRIGGER association_supersession_insert AFTER INSERT ON graph_association
FOR EACH ROW WHEN (NEW.relation_type = 'INVALIDATED_BY') EXECUTE FUNCTION memsite_sync_supersession();
CREATE TRIGGER association_supersession_delete AFTER DELETE ON graph_association
FOR EACH ROW WHEN (OLD.relation_type = 'INVALIDATED_BY') EXECUTE FUNCTION memsite_sync_supersession();
CREATE TRIGGER association_supersession_update
AFTER UPDATE OF source_id, target_id, relation_type ON graph_association
FOR EACH ROW WHEN (OLD.relation_type = 'INVALIDATED_BY' OR NEW.relation_type = 'INVALIDATED_BY')
EXECUTE FUNCTION memsite_sync_supersession();
CREATE TRIGGER memory_validity BEFORE UPDATE OF valid_from, valid_until, superseded_by_id ON memories_memory
FOR EACH ROW WHEN (OLD.valid_from IS DISTINCT FROM NEW.valid_from
                   OR OLD.valid_until IS DISTINCT FROM NEW.valid_until
                   OR OLD.superseded_by_id IS DISTINCT FROM NEW.superseded_by_id)
EXECUTE FUNCTION memsite_memory_validity();
CREATE TRIGGER memory_valid_from AFTER UPDATE OF valid_from ON memories_memory
FOR EACH ROW WHEN (OLD.valid_from IS DISTINCT FROM NEW.valid_from) EXECUTE FUNCTION memsite_sync_valid_from();

-- Associations that existed before: their memories' validity, once.
SELECT memsite_refresh_validity(source_id) FROM (
    SELECT DISTINCT source_id FROM graph_association WHERE relation_type = 'INVALIDATED_BY'
) existing;
"""

DROP = """
DROP TRIGGER IF EXISTS memory_valid_from ON memories_memory;
DROP TRIGGER IF EXISTS memory_validity ON memories_memory;
DROP TRIGGER IF EXISTS association_supersession_update ON graph_association;
DROP TRIGGER IF EXISTS association_supersession_delete ON graph_association;
DROP TRIGGER IF EXISTS association_supersession_insert ON graph_association;
DROP FUNCTION IF EXISTS memsite_sync_valid_from(), memsite_sync_supersession(),
    memsite_refuse_supersession_cycle(uuid, uuid), memsite_refresh_validity(uuid),
    memsite_memory_validity(), memsite_replacement(uuid);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("graph", "0006_preceded_by_indexes"),
        ("memories", "0017_memory_validity"),
    ]

    operations = [migrations.RunSQL(FUNCTIONS, reverse_sql=DROP)]
