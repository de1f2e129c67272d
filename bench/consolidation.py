"""Time a full consolidation run over 100,000 memories and 300,000 associations.

    .venv/bin/python -m bench.consolidation [--memories 100000] [--associations 300000]

Grows the database `memsite_consbench` with `bench.seed` (COPY, precomputed vectors) to the
number of memories, loads random associations between them with COPY (80% user-authored with
the authorable relation types, 20% enrichment SIMILAR_TO / PRECEDED_BY, which the boost does not
count), puts back what an earlier run changed (archived memories, boosts, relevance) and repacks
the table with VACUUM FULL as a fresh load leaves it, all outside the timing. Then it times a dry
run and a real run of `run_consolidation` in this process, and a second real run (the steady
state: nothing new to boost or archive). The per-phase counts and durations are the ones each run
records in its ConsolidationRun. Target: the real run ≤ 30 s.
"""

import argparse
import os
import time

import numpy as np
import psycopg
from tqdm import tqdm

from bench.client import database_url, emit, ensure_database, log, machine, server_environment
from bench.seed import indexes_dropped, seed

DATABASE_URL = database_url("memsite_consbench")
USERNAME = "benchcons"
USER_TYPES = ["RELATES_TO", "LEADS_TO", "PART_OF", "REINFORCES", "DERIVED_FROM", "EXEMPLIFIES"]
ENRICHMENT_TYPES = ["SIMILAR_TO", "PRECEDED_BY"]
ENRICHMENT_SHARE = 0.2
CHUNK = 50_000
COLUMNS = "source_id, target_id, relation_type, strength, properties, origin, created_at, updated_at"

RESET_SQL = """
UPDATE memories_memory SET
    archived_at = NULL, archive_reason = '',
    quality_boost_applied = false, quality_boost_date = NULL, quality_boost_reason = '',
    quality_boost_connection_count = NULL, original_quality_before_boost = NULL,
    quality_boost_factor = NULL, quality_score = quality_overall,
    relevance_score = NULL, relevance_calculated_at = NULL,
    metadata = metadata - ARRAY['quality_boost_applied', 'quality_boost_date', 'quality_boost_reason',
                                'quality_boost_connection_count', 'original_quality_before_boost',
                                'relevance_factors']
WHERE owner_id = %s
  AND (archived_at IS NOT NULL OR quality_boost_applied OR relevance_calculated_at IS NOT NULL)
"""


def _owner_memories(conn, owner_id):
    rows = conn.execute("SELECT id FROM memories_memory WHERE owner_id = %s ORDER BY id", [owner_id])
    return [row[0] for row in rows]


def _random_links(ids, count, random_seed):
    """`count` distinct (source, target, type, origin) tuples with no self-links."""
    rng = np.random.default_rng(random_seed)
    enrichment = int(count * ENRICHMENT_SHARE)
    links, seen = [], set()
    for kinds, origin, wanted in (
        (USER_TYPES, "user", count - enrichment),
        (ENRICHMENT_TYPES, "enrichment", enrichment),
    ):
        made = 0
        while made < wanted:
            size = int((wanted - made) * 1.1) + 10
            sources = rng.integers(0, len(ids), size)
            targets = rng.integers(0, len(ids), size)
            types = rng.integers(0, len(kinds), size)
            for source, target, kind in zip(sources, targets, types, strict=True):
                key = (source, target, kind, origin)
                if source == target or key in seen or made == wanted:
                    continue
                seen.add(key)
                links.append((ids[source], ids[target], kinds[kind], origin))
                made += 1
    return links


def load_associations(database_url, owner_id, count, random_seed):
    """Replace the owner's associations with `count` random ones, loaded with COPY."""
    with psycopg.connect(database_url) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
        ids = _owner_memories(conn, owner_id)
        (existing,) = conn.execute(
            "SELECT count(*) FROM graph_association a JOIN memories_memory m ON m.id = a.source_id "
            "WHERE m.owner_id = %s",
            [owner_id],
        ).fetchone()
        if existing == count:
            return {"associations": count, "loaded": False, "seconds": 0}
        started = time.perf_counter()
        links = _random_links(ids, count, random_seed)
        conn.execute(
            "DELETE FROM graph_association a USING memories_memory m "
            "WHERE m.id = a.source_id AND m.owner_id = %s",
            [owner_id],
        )
        rng = np.random.default_rng(random_seed + 1)
        strengths = rng.uniform(0.3, 1.0, len(links))
        with (
            indexes_dropped(conn, "graph_association"),
            conn.cursor().copy(f"COPY graph_association ({COLUMNS}) FROM STDIN") as copy,
        ):
            progress = tqdm(links, desc="COPY associations", unit="link", miniters=CHUNK)
            for (source, target, kind, origin), strength in zip(progress, strengths, strict=True):
                copy.write_row((source, target, kind, float(strength), "{}", origin, "now", "now"))
        conn.execute("ANALYZE graph_association")
    return {"associations": count, "loaded": True, "seconds": round(time.perf_counter() - started, 1)}


def reset_state(database_url, owner_id):
    """Undo an earlier run and repack the table as a fresh load leaves it (outside the timing)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        reset = conn.execute(RESET_SQL, [owner_id]).rowcount
        conn.execute("DELETE FROM quality_qualityboost")
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute("VACUUM FULL memories_memory")
        conn.execute("ANALYZE memories_memory")
    return reset


def timed_run(dry_run):
    from quality.consolidation import run_consolidation

    started = time.perf_counter()
    run = run_consolidation(dry_run=dry_run)
    seconds = time.perf_counter() - started
    return {
        "run_id": run.pk,
        "status": run.status,
        "seconds_total": round(seconds, 2),
        "phase_ms": {name: counts["duration_ms"] for name, counts in run.phases.items()},
        "phases": run.phases,
    }


def prepare_scale(args):
    """Grow the database to `args.memories` memories and `args.associations` associations of the
    benchmark user; answers (owner id, the association load's report)."""
    ensure_database(args.database_url)
    with psycopg.connect(args.database_url) as conn:
        row = conn.execute(
            "SELECT u.id, count(m.id) FROM auth_user u LEFT JOIN memories_memory m ON m.owner_id = u.id "
            "WHERE u.username = %s GROUP BY u.id",
            [USERNAME],
        ).fetchone()
    existing = row[1] if row else 0
    if existing < args.memories:
        log(f"Seeding {args.memories - existing:,} memories ...")
        seed(args.database_url, args.memories - existing, USERNAME, random_seed=args.seed)
    with psycopg.connect(args.database_url) as conn:
        (owner_id,) = conn.execute("SELECT id FROM auth_user WHERE username = %s", [USERNAME]).fetchone()
    return owner_id, load_associations(args.database_url, owner_id, args.associations, args.seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--associations", type=int, default=300_000)
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    parser.add_argument("--skip-dry-run", action="store_true", help="time only the real run")
    args = parser.parse_args()

    owner_id, associations = prepare_scale(args)
    with psycopg.connect(args.database_url) as conn:
        (total,) = conn.execute("SELECT count(*) FROM memories_memory").fetchone()
    reset = reset_state(args.database_url, owner_id)

    os.environ.update(server_environment(args.database_url))
    os.environ.setdefault("MEMSITE_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.conf import settings

    dry = None if args.skip_dry_run else timed_run(dry_run=True)
    real = timed_run(dry_run=False)
    again = timed_run(dry_run=False)
    log(
        f"Consolidation of {total:,} memories and {args.associations:,} associations: "
        f"real run {real['seconds_total']} s {real['phase_ms']}, "
        f"second real run {again['seconds_total']} s"
        + ("" if dry is None else f", dry run {dry['seconds_total']} s")
    )
    emit(
        {
            "benchmark": "consolidation",
            "database": args.database_url.rsplit("/", 1)[-1],
            "memories": total,
            "associations": associations,
            "enrichment_share": ENRICHMENT_SHARE,
            "rows_reset_before_run": reset,
            "precomputed_vectors": True,
            "boost_settings": {
                "min_connections": settings.BOOST_MIN_CONNECTIONS,
                "factor": settings.BOOST_FACTOR,
                "decay": settings.BOOST_DECAY_ENABLED,
                "bidirectional": settings.BOOST_BIDIRECTIONAL_ENABLED,
            },
            "target_seconds": 30,
            "real_run": real,
            "second_real_run": again,
            "dry_run": dry,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
