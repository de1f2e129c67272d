"""Time association discovery at scale and measure its precision on the demo data set.

    .venv/bin/python -m bench.discovery scale [--memories 100000] [--associations 300000] [--changed 1000]
    .venv/bin/python -m bench.discovery demo [--demo-count 300]

Scale: grows `memsite_consbench` exactly as `bench.consolidation` does (bench.seed rows with
precomputed vectors, random associations loaded with COPY), then times the discovery phase over
every live memory (a first run) and over `--changed` memories touched since the last applied run
(the daily, incremental case). Both runs happen inside a transaction that is rolled back, so the
database stays as loaded and repeated runs measure the same work.

Precision: re-creates `memsite_discdemo` and stores the demo data set (`dashboard.demo.seed_demo`,
the same as `manage.py seed_demo`, with real embeddings), whose consolidation runs discovery. Each
demo memory about a project carries the project's tag, so a discovered edge is right when its two
memories name the same project. Reported: precision over the edges whose two memories both belong
to a project (target ≥ 0.8), the edges touching a memory of no project, and how many boosts exist
only thanks to discovered links.
"""

import argparse
import os
import time
from collections import Counter

import psycopg

from bench.client import database_url, emit, ensure_database, log, machine, server_environment
from bench.consolidation import prepare_scale

SCALE_URL = database_url("memsite_consbench")
DEMO_URL = database_url("memsite_discdemo")
DEMO_PROJECTS = {"atlas", "beacon", "cobalt", "delta", "ember", "fjord"}


def _setup_django(database_url):
    os.environ.update(server_environment(database_url))
    os.environ.setdefault("MEMSITE_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def _prepare_scale(args):
    _, associations = prepare_scale(args)
    with psycopg.connect(args.database_url) as conn:
        (total,) = conn.execute("SELECT count(*) FROM memories_memory WHERE archived_at IS NULL").fetchone()
    return total, associations


def _timed_phase(changed):
    """One discovery phase, rolled back; `changed` None is a first run, else that many touched memories."""
    from django.db import connection, transaction

    from quality.consolidation.discovery import discovery_phase
    from quality.models import ConsolidationRun

    with transaction.atomic():
        if changed is not None:
            ConsolidationRun.objects.create(
                dry_run=False, status=ConsolidationRun.Status.SUCCEEDED, phases={"discover": {}}
            )
            with connection.cursor() as cursor:
                cursor.execute(
                    "UPDATE memories_memory SET updated_at = clock_timestamp() WHERE id IN ("
                    "SELECT id FROM memories_memory WHERE archived_at IS NULL ORDER BY id LIMIT %s)",
                    [changed],
                )
        started = time.perf_counter()
        counts = discovery_phase()
        seconds = time.perf_counter() - started
        transaction.set_rollback(True)
    return {"seconds": round(seconds, 2), "counts": counts}


def scale(args):
    total, associations = _prepare_scale(args)
    _setup_django(args.database_url)
    load_before = os.getloadavg()
    first = _timed_phase(None)
    incremental = _timed_phase(args.changed)
    log(
        f"Discovery over {total:,} memories: first run {first['seconds']} s "
        f"({first['counts'].get('created')} edges), {args.changed:,} changed {incremental['seconds']} s"
    )
    return {
        "memories": total,
        "associations": associations,
        "first_run": first,
        "incremental_run": {"changed": args.changed, **incremental},
        "load_average_before": [round(value, 2) for value in load_before],
        "load_average_after": [round(value, 2) for value in os.getloadavg()],
    }


def _project(tags):
    found = DEMO_PROJECTS.intersection(tags)
    return next(iter(found)) if len(found) == 1 else None


def demo(args):
    ensure_database(args.demo_database_url, fresh=True)
    _setup_django(args.demo_database_url)
    from django.contrib.auth import get_user_model

    from dashboard.demo import seed_demo
    from graph.models import Association
    from quality.consolidation.discovery import count_boosts_resting_on_discovery

    owner = get_user_model().objects.create_user("discdemo")
    started = time.perf_counter()
    result = seed_demo(owner, count=args.demo_count)
    seconds = time.perf_counter() - started
    verdicts, kinds = Counter(), Counter()
    edges = Association.objects.filter(relation_type="DISCOVERED").values_list(
        "source__tags", "target__tags", "properties"
    )
    for source_tags, target_tags, properties in edges:
        kinds[properties["kind"]] += 1
        first, second = _project(source_tags), _project(target_tags)
        if first and second:
            verdicts["same_project" if first == second else "other_project"] += 1
        else:
            verdicts["without_project"] += 1
    judged = verdicts["same_project"] + verdicts["other_project"]
    real_run = result.runs[-1]
    return {
        "memories": result.memories,
        "seed_seconds": round(seconds, 1),
        "discovered_edges": sum(verdicts.values()),
        "by_kind": dict(kinds),
        "same_project": verdicts["same_project"],
        "other_project": verdicts["other_project"],
        "without_project": verdicts["without_project"],
        "precision": round(verdicts["same_project"] / judged, 3) if judged else None,
        "precision_target": 0.8,
        "boosts_resting_on_discovery": count_boosts_resting_on_discovery(),
        "boost_phase": real_run.phases["boost"],
        "discover_phase": real_run.phases["discover"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--associations", type=int, default=300_000)
    parser.add_argument("--changed", type=int, default=1000, help="memories touched for the incremental run")
    parser.add_argument("--database-url", default=SCALE_URL)
    parser.add_argument("--demo-database-url", default=DEMO_URL)
    parser.add_argument("--demo-count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    parser.add_argument("measure", choices=["scale", "demo"])
    args = parser.parse_args()

    report = {"benchmark": f"discovery-{args.measure}", "precomputed_vectors": args.measure == "scale"}
    report[args.measure] = scale(args) if args.measure == "scale" else demo(args)
    from django.conf import settings

    report["settings"] = {
        "similarity_band": [settings.DISCOVERY_MIN_SIMILARITY, settings.DISCOVERY_MAX_SIMILARITY],
        "neighbours": settings.DISCOVERY_NEIGHBOURS,
        "temporal_window_minutes": settings.DISCOVERY_TEMPORAL_WINDOW_MINUTES,
        "max_per_memory": settings.DISCOVERY_MAX_PER_MEMORY,
        "max_per_run": settings.DISCOVERY_MAX_PER_RUN,
        "min_connections_for_boost": settings.BOOST_MIN_CONNECTIONS,
    }
    report["machine"] = machine()
    emit(report)


if __name__ == "__main__":
    main()
