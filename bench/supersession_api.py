"""Supersession through the API, as a client would meet it, on the labelled sets.

For each labelled pair (bench/data/supersession/): a user of its own with a few unrelated memories
of the set stores the older memory with its timestamp, then the newer one dated `gap_days` later
(no `supersedes`); then detection is queued for every user and the queue is waited for. Each pair
is detected when the older memory is superseded by the newer one or a `superseded` finding names
the two. Each pair's question is then asked with GET /recall: for an update the newer fact should
come first, for two that both hold the one the question asks about (`answer_is`); it does when it
ranks above the other (or the other is not returned). The same questions are asked again of a
server with the superseded component's weight at 0. `older_first` names the updates whose older
memory came first, each with what detection did with it (applied, proposed or missed).

    python -m bench.supersession_api                     # the held-out sets
    python -m bench.supersession_api --sets all          # every set
    python -m bench.supersession_api --findings --sets all

With `--findings` it measures the other findings instead: each labelled `finding_pairs` pair
(a contradiction, a duplicate, or neither) is stored with one timestamp for a user of its own with
a few unrelated memories, detection runs, and the `contradiction` and `duplicate` findings between
the two are compared with the labels (precision and recall per type).

Also reports what the proposals cost: the durations of the enrichment jobs (which queue the
proposals) and of the proposal jobs, from the job outcomes. Prints JSON.
"""

import argparse
import json
import random
import time
from datetime import datetime, timedelta

import psycopg

from bench.client import (
    BENCH_PORT,
    Client,
    database_url,
    emit,
    ensure_database,
    issue_token,
    log,
    machine,
    running_server,
    start_worker,
    summarize_ms,
)
from bench.supersession import HELD_OUT, sets

DATABASE_URL = database_url("memsite_supersession")
PORT = BENCH_PORT + 12
DISTRACTORS = 5
START = datetime(2024, 1, 8, 9, 0)
RECALL_LIMIT = 10


def load(client_for, labelled, rng):
    """Store every pair for a user of its own; answer [(pair, user client, older id, newer id)]."""
    stored = []
    for pair in labelled["supersession_pairs"]:
        client = client_for(pair["id"])
        older_at = START + timedelta(days=rng.randrange(200))
        for text in rng.sample(labelled["distractors"], DISTRACTORS):
            at = older_at - timedelta(days=rng.randrange(1, 60))
            client.expect("POST", "/memory", body={"content": text, "timestamp": at.isoformat() + "Z"})
        older = client.expect(
            "POST", "/memory", body={"content": pair["older"], "timestamp": older_at.isoformat() + "Z"}
        )
        newer_at = older_at + timedelta(days=pair["gap_days"])
        newer = client.expect(
            "POST", "/memory", body={"content": pair["newer"], "timestamp": newer_at.isoformat() + "Z"}
        )
        stored.append((pair, client, older[0]["memory_id"], newer[0]["memory_id"]))
    return stored


def load_findings(client_for, labelled, rng):
    """Store every finding pair for a user of its own; answer [(pair, user client, a id, b id)]."""
    stored = []
    for pair in labelled["finding_pairs"]:
        client = client_for(pair["id"])
        at = (START + timedelta(days=rng.randrange(200))).isoformat() + "Z"
        for text in rng.sample(labelled["distractors"], DISTRACTORS):
            client.expect("POST", "/memory", body={"content": text, "timestamp": at})
        ids = [
            client.expect("POST", "/memory", body={"content": pair[side], "timestamp": at})[0]
            for side in "ab"
        ]
        stored.append((pair, client, ids[0]["memory_id"], ids[1]["memory_id"]))
    return stored


def found_types(client, first, second):
    """The types of the open or resolved findings between two memories."""
    findings, _ = client.expect("GET", "/api/quality/inconsistencies", params={"memory": first, "limit": 500})
    return {
        finding["type"]
        for finding in findings["results"]
        if {finding["memory1"]["id"], (finding["memory2"] or {}).get("id")} == {first, second}
    }


def finding_scores(rows):
    report = {}
    for kind in ("contradiction", "duplicate"):
        flagged = [row for row in rows if kind in row["found"]]
        wanted = [row for row in rows if row["pair"]["label"] == kind]
        hits = [row for row in flagged if row["pair"]["label"] == kind]
        report[kind] = {
            "labelled": len(wanted),
            "flagged": len(flagged),
            "precision": round(len(hits) / max(1, len(flagged)), 3),
            "recall": round(len(hits) / max(1, len(wanted)), 3),
            "wrongly_flagged": [row["pair"]["id"] for row in flagged if row["pair"]["label"] != kind],
        }
    report["superseded_between_pairs"] = sum(1 for row in rows if "superseded" in row["found"])
    return report


def wait_for(client, job_id, timeout=1800):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body, _ = client.expect("GET", f"/api/jobs/{job_id}")
        if body["job"]["status"] in ("succeeded", "failed", "cancelled", "aborted"):
            return body["job"]
        time.sleep(0.5)
    raise RuntimeError(f"job {job_id} did not finish")


def detected(client, older, newer):
    memory, _ = client.expect("GET", f"/memory/{older}")
    if memory["memory"]["superseded_by"] == newer:
        return "applied"
    findings, _ = client.expect(
        "GET", "/api/quality/inconsistencies", params={"type": "superseded", "memory": older}
    )
    for finding in findings["results"]:
        if {finding["memory1"]["id"], (finding["memory2"] or {}).get("id")} == {older, newer}:
            return "proposed"
    return None


def answer_first(client, pair, older, newer):
    """Whether the memory that answers the pair's question (the newer of an update; of two that
    both hold, the one `answer_is` names) ranks above the other, or alone is returned."""
    answer, other = (older, newer) if pair.get("answer_is") == "older" else (newer, older)
    body, _ = client.expect("GET", "/recall", params={"query": pair["question"], "limit": RECALL_LIMIT})
    ids = [result["id"] for result in body["results"]]
    if answer not in ids:
        return False
    return other not in ids or ids.index(answer) < ids.index(other)


def share(rows, key):
    return round(sum(row[key] for row in rows) / max(1, len(rows)), 3)


def job_durations(url):
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT task_name, duration_ms FROM memsite_joboutcome WHERE error = '' "
            "AND task_name IN ('graph.tasks.enrich_memories', 'quality.propose_supersessions')"
        ).fetchall()
    by_task = {}
    for task, duration in rows:
        by_task.setdefault(task, []).append(duration)
    return {task: summarize_ms(values) for task, values in by_task.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sets", default="held-out", help="held-out (default), all, or comma-separated names"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--findings", action="store_true", help="measure contradictions and duplicates")
    args = parser.parse_args()
    labelled = sets()
    chosen = {
        "held-out": sorted(HELD_OUT),
        "all": sorted(labelled),
    }.get(args.sets, args.sets.split(","))
    ensure_database(DATABASE_URL, fresh=True)
    rng = random.Random(args.seed)
    worker = start_worker(DATABASE_URL)
    report = {"benchmark": "supersession_api", "machine": machine(), "sets": {}}
    try:
        tokens = {}

        def client_for(name, base_url):
            if name not in tokens:
                tokens[name], _ = issue_token(DATABASE_URL, f"pair-{name}"[:150])
            return Client(base_url, tokens[name])

        with running_server(DATABASE_URL, PORT) as base_url:
            loader = load_findings if args.findings else load
            stored = {
                name: loader(
                    lambda pair_id, n=name: client_for(f"{n}-{pair_id}", base_url), labelled[name], rng
                )
                for name in chosen
            }
            log("stored; detecting")
            for pairs in stored.values():
                for _, client, _, _ in pairs:
                    job, _ = client.expect("POST", "/api/quality/inconsistencies/detect", statuses=(202,))
                    wait_for(client, job["job_id"])
            if args.findings:
                report["findings"] = {
                    name: finding_scores(
                        [{"pair": pair, "found": found_types(client, a, b)} for pair, client, a, b in pairs]
                    )
                    for name, pairs in stored.items()
                }
                emit(report)
                return
            results = {}
            for name, pairs in stored.items():
                rows = []
                for pair, client, older, newer in pairs:
                    found = detected(client, older, newer)
                    first = answer_first(client, pair, older, newer)
                    rows.append(
                        {"pair": pair, "older": older, "newer": newer, "found": found, "first": first}
                    )
                results[name] = rows
        with running_server(
            DATABASE_URL, PORT, extra_env={"MEMSITE_RECALL_WEIGHT_SUPERSEDED": "0"}
        ) as base_url:
            for name, rows in results.items():
                for row in rows:
                    client = client_for(f"{name}-{row['pair']['id']}", base_url)
                    row["first_without"] = answer_first(client, row["pair"], row["older"], row["newer"])
        for name, rows in results.items():
            updates = [row for row in rows if row["pair"]["label"] == "update"]
            both = [row for row in rows if row["pair"]["label"] != "update"]
            flagged = [row for row in rows if row["found"]]
            hits = [row for row in flagged if row["pair"]["label"] == "update"]
            report["sets"][name] = {
                "pairs": len(rows),
                "updates": len(updates),
                "precision": round(len(hits) / max(1, len(flagged)), 3),
                "recall": round(len(hits) / max(1, len(updates)), 3),
                "applied": sum(1 for row in rows if row["found"] == "applied"),
                "proposed_for_review": sum(1 for row in rows if row["found"] == "proposed"),
                "newer_first": share(updates, "first"),
                "newer_first_without_component": share(updates, "first_without"),
                "both_true_answer_first": share(both, "first"),
                "both_true_answer_first_without_component": share(both, "first_without"),
                "missed": [row["pair"]["id"] for row in updates if not row["found"]],
                "older_first": {
                    row["pair"]["id"]: row["found"] or "missed" for row in updates if not row["first"]
                },
                "wrongly_flagged": [row["pair"]["id"] for row in flagged if row["pair"]["label"] != "update"],
            }
        report["job_durations"] = job_durations(DATABASE_URL)
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    emit(report)
    log(
        json.dumps(
            {
                name: {k: v for k, v in data.items() if k not in ("missed", "wrongly_flagged", "older_first")}
                for name, data in report["sets"].items()
            }
        )
    )


if __name__ == "__main__":
    main()
