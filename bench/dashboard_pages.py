"""Dashboard and admin page load times at 10,000 memories: server response time of every staff page.

Fills `memsite_bench_dashboard` with 10,000 memories (bench.seed, precomputed vectors), 30,000
associations (bench.graph_seed), runs inconsistency detection and one applied consolidation, then
serves it with gunicorn, signs in as the staff user `demo` through the login form and times each
page (full HTML, charts included) from a client on the same machine. Target: under 300 ms.
"""

import argparse
import http.cookiejar
import re
import time
import urllib.parse
import urllib.request

import psycopg

from bench.client import (
    database_url,
    emit,
    ensure_database,
    log,
    machine,
    manage,
    running_server,
    summarize_ms,
)
from bench.graph_seed import seed_associations
from bench.seed import seed

DATABASE_URL = database_url("memsite_bench_dashboard")
RECALL_QUERY = "how do we deploy the billing service"
PORT = 8096
USER = "bench"


def prepare(database_url, count, associations, fresh):
    ensure_database(database_url, fresh=fresh)
    with psycopg.connect(database_url) as conn:
        (existing,) = conn.execute("SELECT count(*) FROM memories_memory").fetchone()
    if existing < count:
        log(f"seeding {count - existing} memories")
        seed(database_url, count=count - existing, username=USER)
        log(f"adding {associations} associations")
        seed_associations(database_url, count=associations, username=USER)
        log("detecting inconsistencies")
        manage("detect_inconsistencies", database_url=database_url)
        log("consolidating")
        manage("consolidate", "--apply", database_url=database_url)
    manage("ensure_demo_user", database_url=database_url)
    manage("collectstatic", "--noinput", "-v", "0", database_url=database_url)
    with psycopg.connect(database_url) as conn:
        totals = conn.execute(
            "SELECT (SELECT count(*) FROM memories_memory), (SELECT count(*) FROM graph_association),"
            " (SELECT count(*) FROM quality_inconsistency), (SELECT count(*) FROM quality_qualityboost),"
            " (SELECT count(*) FROM quality_qualityassessment)"
        ).fetchone()
        hub = conn.execute(
            "SELECT source_id FROM graph_association GROUP BY source_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]
        finding_id, finding = conn.execute(
            "SELECT id, memory1_id FROM quality_inconsistency ORDER BY memory2_id IS NULL, id LIMIT 1"
        ).fetchone()
        (run,) = conn.execute("SELECT max(id) FROM quality_consolidationrun WHERE NOT dry_run").fetchone()
        (owner,) = conn.execute("SELECT id FROM auth_user WHERE username = %s", [USER]).fetchone()
    names = ["memories", "associations", "inconsistencies", "boost_events", "assessments"]
    ids = {"hub": hub, "finding": finding, "finding_id": finding_id, "run": run, "owner": owner}
    return dict(zip(names, totals, strict=True)), ids


def signed_in_opener(base):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/accounts/login/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode(
        {"username": "demo", "password": "demo", "csrfmiddlewaretoken": token, "next": "/dashboard/"}
    ).encode()
    request = urllib.request.Request(f"{base}/accounts/login/", data=body, headers={"Referer": base})
    response = opener.open(request)
    if not response.geturl().endswith("/dashboard/"):
        raise RuntimeError("could not sign in as demo")
    return opener


def time_page(opener, url, warmup, repeat):
    for _ in range(warmup):
        opener.open(url).read()
    samples = []
    size = 0
    for _ in range(repeat):
        started = time.perf_counter()
        response = opener.open(url)
        size = len(response.read())
        samples.append((time.perf_counter() - started) * 1000)
        if response.status != 200:
            raise RuntimeError(f"{url} answered {response.status}")
    return {**summarize_ms(samples), "bytes": size}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="memories (default 10000)")
    parser.add_argument("--associations", type=int, default=30_000, help="associations (default 30000)")
    parser.add_argument("--repeat", type=int, default=20, help="timed requests per page (default 20)")
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--port", type=int, default=PORT, help=f"port of the bench server (default {PORT})")
    parser.add_argument("--fresh", action="store_true", help="drop and re-create the database first")
    args = parser.parse_args()

    totals, ids = prepare(args.database_url, args.count, args.associations, args.fresh)
    hub, finding = ids["hub"], ids["finding"]
    recall = f"/dashboard/recall/?owner={ids['owner']}&{urllib.parse.urlencode({'query': RECALL_QUERY})}"
    pages = {
        "overview": "/dashboard/",
        "quality": "/dashboard/quality/",
        "quality_filtered_by_type": "/dashboard/quality/?memory_type=Decision",
        "inconsistencies": "/dashboard/inconsistencies/",
        "inconsistencies_of_owner": f"/dashboard/inconsistencies/?owner={ids['owner']}&type=duplicate",
        "supersessions": "/dashboard/supersessions/",
        "jobs": "/dashboard/jobs/?range=30",
        "overview_all_time": "/dashboard/?days=all",
        "boosts": "/dashboard/boosts/",
        "consolidation": "/dashboard/consolidation/",
        "memory_hub": f"/dashboard/memories/{hub}/",
        "memory_with_finding": f"/dashboard/memories/{finding}/",
        "memory_browser": "/dashboard/memories/",
        "memory_browser_filtered": "/dashboard/memories/?tier=medium&archived=no&q=deploy",
        "memory_browser_by_quality": "/dashboard/memories/?sort=-quality",
        "recall_explorer": f"{recall}&limit=10",
        "recall_explorer_expanded": f"{recall}&limit=10&expand_relations=true&rank_by_quality=true",
        "recall_explorer_why_not": f"{recall}&limit=10&why_not={hub}",
        "admin_memories": "/admin/memories/memory/",
        "admin_memories_low_tier": "/admin/memories/memory/?tier=low",
        "admin_memories_of_owner": f"/admin/memories/memory/?owner__id__exact={ids['owner']}",
        "admin_memories_searched": "/admin/memories/memory/?q=deploy&memory_type__exact=Decision",
        "admin_memory_hub": f"/admin/memories/memory/{hub}/change/",
        "admin_memory_with_finding": f"/admin/memories/memory/{finding}/change/",
        "admin_inconsistencies": "/admin/quality/inconsistency/",
        "admin_inconsistency": f"/admin/quality/inconsistency/{ids['finding_id']}/change/",
        "admin_boosts": "/admin/quality/qualityboost/",
        "admin_consolidation_run": f"/admin/quality/consolidationrun/{ids['run']}/change/",
    }
    base = f"http://127.0.0.1:{args.port}"
    results = {}
    with running_server(args.database_url, port=args.port):
        opener = signed_in_opener(base)
        for name, path in pages.items():
            results[name] = time_page(opener, base + path, warmup=3, repeat=args.repeat)
            log(f"{name}: p50 {results[name]['p50_ms']} ms, p95 {results[name]['p95_ms']} ms")
    emit(
        {
            "benchmark": "dashboard_pages",
            "target_ms": 300,
            "data": totals,
            "precomputed_vectors": True,
            "measured": "client-side time for the full HTML of each page over HTTP (gunicorn, 2 workers)",
            "pages": results,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
