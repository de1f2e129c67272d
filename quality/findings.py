"""How a finding is recorded, by detection and by the supersession proposals alike.

A finding is upserted on its unique (type, memory1, memory2). Re-recording keeps reviewers'
decisions: a dismissed finding stays dismissed; a resolved one stays resolved unless one of its
memories changed (content or provenance) after the resolution, or it was resolved only because a
run no longer found it; an open one is rewritten only when its severity or description changed.
"""

STALE_RESOLUTION = "no_longer_detected"
EXCERPT_LENGTH = 80


def excerpt_sql(column, length=EXCERPT_LENGTH):
    """SQL: the text of `column` for a finding's description, cut at the last whole word within
    `length` characters and marked with an ellipsis when cut (a single longer word is cut)."""
    return (
        f"CASE WHEN length({column}) <= {length} THEN {column} ELSE left(regexp_replace("
        f"left({column}, {length + 1}), '[[:space:]]+[^[:space:]]*$', ''), {length - 1}) || '…' END"
    )

# The ON CONFLICT clause of an INSERT INTO quality_inconsistency AS i (... detected_at) that needs
# `%(stale)s` (STALE_RESOLUTION) among its parameters.
UPSERT_RULE = """
ON CONFLICT (type, memory1_id, memory2_id) DO UPDATE SET
    severity = EXCLUDED.severity,
    description = EXCLUDED.description,
    details = EXCLUDED.details,
    status = 'open',
    resolution = CASE WHEN i.status = 'open' THEN i.resolution ELSE '' END,
    resolved_at = CASE WHEN i.status = 'open' THEN i.resolved_at END,
    resolved_by_id = CASE WHEN i.status = 'open' THEN i.resolved_by_id END,
    detected_at = CASE WHEN i.status = 'open' THEN i.detected_at ELSE now() END
WHERE (i.status = 'open'
       AND (i.severity <> EXCLUDED.severity OR i.description <> EXCLUDED.description))
   OR (i.status = 'resolved' AND (
        i.resolution = %(stale)s
        OR (SELECT max(GREATEST(c.updated_at, c.provenance_updated_at)) FROM memories_memory c
            WHERE c.id IN (EXCLUDED.memory1_id, EXCLUDED.memory2_id)) > i.resolved_at))
"""
