"""A memory's pending replacement, derived in the database from the `superseded` findings.

`memories_memory.replacement_proposed` is the confidence of the strongest open `superseded`
finding that names the memory as the older one (0 without one); recall ranks such a memory lower
in what holds now. Findings that rest on conversation turns do not count: a later turn on the same
topic is more talk about it, not a new value. Statement triggers keep the column in step with the
findings, in the transaction that writes them, whichever way they are written (a proposal, a
detection run, a review, a reclassification, a delete); the memories whose value changes are
locked in id order, so two such transactions cannot deadlock on them. A save of the column that
disagrees with the findings (a stale save) is corrected to what the findings say.
"""

from django.db import migrations

FUNCTIONS = r"""
CREATE FUNCTION memsite_proposed_replacement(memory uuid) RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT COALESCE(max(i.severity), 0) FROM quality_inconsistency i
    WHERE i.memory1_id = memory AND i.type = 'superseded' AND i.status = 'open'
      AND NOT i.details->'signals' ? 'conversation_turn'
$$;

CREATE FUNCTION memsite_refresh_proposed(memories uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM memories_memory m
    WHERE m.id = ANY(memories) AND m.replacement_proposed <> memsite_proposed_replacement(m.id)
    ORDER BY m.id FOR NO KEY UPDATE;
    UPDATE memories_memory m SET replacement_proposed = memsite_proposed_replacement(m.id)
    WHERE m.id = ANY(memories) AND m.replacement_proposed <> memsite_proposed_replacement(m.id);
END $$;

CREATE FUNCTION memsite_findings_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM memsite_refresh_proposed(ARRAY(SELECT memory1_id FROM written WHERE type = 'superseded'));
    RETURN NULL;
END $$;

CREATE FUNCTION memsite_findings_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM memsite_refresh_proposed(ARRAY(
        SELECT memory1_id FROM written WHERE type = 'superseded'
        UNION SELECT memory1_id FROM replaced WHERE type = 'superseded'
    ));
    RETURN NULL;
END $$;

CREATE FUNCTION memsite_memory_proposed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.replacement_proposed := memsite_proposed_replacement(NEW.id);
    RETURN NEW;
END $$;

CREATE TRIGGER inconsistency_proposed_inserted AFTER INSERT ON quality_inconsistency
    REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION memsite_findings_written();
CREATE TRIGGER inconsistency_proposed_deleted AFTER DELETE ON quality_inconsistency
    REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION memsite_findings_written();
CREATE TRIGGER inconsistency_proposed_updated AFTER UPDATE ON quality_inconsistency
    REFERENCING OLD TABLE AS replaced NEW TABLE AS written
    FOR EACH STATEMENT EXECUTE FUNCTION memsite_findings_updated();
CREATE TRIGGER memory_replacement_proposed BEFORE UPDATE OF replacement_proposed ON memories_memory
    FOR EACH ROW WHEN (NEW.replacement_proposed IS DISTINCT FROM OLD.replacement_proposed)
    EXECUTE FUNCTION memsite_memory_proposed();

CREATE INDEX inconsistency_open_superseded ON quality_inconsistency (memory1_id)
    WHERE type = 'superseded' AND status = 'open';

UPDATE memories_memory m SET replacement_proposed = memsite_proposed_replacement(m.id)
WHERE m.id IN (SELECT memory1_id FROM quality_inconsistency WHERE type = 'superseded' AND status = 'open');
"""

REVERSE = r"""
DROP INDEX inconsistency_open_superseded;
DROP TRIGGER memory_replacement_proposed ON memories_memory;
DROP TRIGGER inconsistency_proposed_updated ON quality_inconsistency;
DROP TRIGGER inconsistency_proposed_deleted ON quality_inconsistency;
DROP TRIGGER inconsistency_proposed_inserted ON quality_inconsistency;
DROP FUNCTION memsite_memory_proposed();
DROP FUNCTION memsite_findings_updated();
DROP FUNCTION memsite_findings_written();
DROP FUNCTION memsite_refresh_proposed(uuid[]);
DROP FUNCTION memsite_proposed_replacement(uuid);
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0023_memory_replacement_proposed"), ("quality", "0008_pair_relation")]

    operations = [migrations.RunSQL(FUNCTIONS, REVERSE)]
