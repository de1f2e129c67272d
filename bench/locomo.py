"""LoCoMo retrieval through the HTTP API: recall@1/5/10 per category and query latency.

    .venv/bin/python -m bench.locomo [PATH] [--protocol session|minute|both] [--reuse]
        [--samples conv-26,conv-30] [--every 3] [--param expand_relations=true]
        [--env MEMSITE_RECALL_WEIGHT_VECTOR=0.5] [--cv [--baseline REPORT.json]]

PATH defaults to ../shared/data/locomo-dev.json next to the repository (the data is licensed CC
BY-NC 4.0 and stays outside it). Every turn becomes one memory, "Speaker: text", tagged with its
sample id and dia_id, stored with `POST /memory/batch` in conversation order (a job worker then
runs the queued enrichment, which links each turn to the previous one, before any question is
asked), and dated by one of two ingestion protocols: `session` — every turn carries its
session's date and time (all LoCoMo gives, so the order rests on the insertion sequence),
`minute` — the session's time plus one minute per turn. `--protocol both` (the default) loads
and measures each in turn, each in its own database (the database name gets the protocol as a
suffix). Every question (except category 5, adversarial: no answer in the conversation) is
asked with `GET /recall?query=<question>&tags=<sample id>&limit=10`; recall@k is the share of the question's
evidence turns among the first k results, averaged over questions, overall and per category (1
multi-hop, 2 temporal, 3 open-domain, 4 single-hop).
Target: recall@5 >= 0.70 (mcp-memory-service reports 0.497).

Each run uses fresh databases and its own gunicorn (2 workers); `--reuse` keeps already loaded
databases (migrated to this checkout's schema), to compare server settings (`--env`) or recall
parameters (`--param`) quickly.
`--samples` and `--every K` (every K-th question) measure a subset while iterating.

`--cv` adds leave-one-conversation-out validation: each conversation is one held-out fold, scored
(recall@5, overall and per category) with settings chosen on the other conversations, and the
report gives every fold with the mean, min and max. `--baseline` names an earlier `--cv` report:
each fold's change against it is listed, and a change is `kept` only when it gains on the mean and
loses no more than 0.01 on any fold.
"""

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import psycopg

from bench.client import (
    BENCH_PORT,
    ROOT,
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

DEFAULT_PATH = ROOT.parent / "shared" / "data" / "locomo-dev.json"
LOCOMO_DATABASE_URL = database_url("memsite_locomo")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (1, 5, 10)
CV_MAX_FOLD_LOSS = 0.01
TARGET_RECALL_AT_5 = 0.70
BATCH = 500
USERNAME = "locomo"
EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
PROTOCOLS = ["session", "minute"]


def load(path):
    if not path.exists():
        log(f"LoCoMo data not found at {path}. Pass its path as the first argument.")
        sys.exit(2)
    return json.loads(path.read_text())


def session_time(text):
    """'1:56 pm on 8 May, 2023' -> datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def turns(sample, protocol):
    """Memory payloads for every turn of a sample, with (sample id, dia_id)."""
    conversation = sample["conversation"]
    sessions = sorted(int(key.split("_")[1]) for key in conversation if re.fullmatch(r"session_\d+", key))
    for number in sessions:
        started = session_time(conversation[f"session_{number}_date_time"])
        for index, turn in enumerate(conversation[f"session_{number}"]):
            offset = timedelta(minutes=index if protocol == "minute" else 0)
            yield (
                turn["dia_id"],
                {
                    "content": f"{turn['speaker']}: {turn['text']}",
                    "timestamp": (started + offset).isoformat() + "Z",
                    "tags": [sample["sample_id"], turn["dia_id"]],
                    "source_type": "bootstrapped",
                },
            )


def result_ids(data):
    """The memory id of each batch item, in order (a duplicate answers the existing id)."""
    if data.get("failed"):
        raise RuntimeError(f"Batch items failed: {data['failed'][:3]}")
    return [str(item["memory_id"]) for item in sorted(data["succeeded"], key=lambda item: item["index"])]


def store(client, samples, protocol):
    """Store every turn; answer {memory id: {(sample id, dia_id), ...}} and the store rate."""
    turn_of = defaultdict(set)
    count, started = 0, time.perf_counter()
    for sample in samples:
        payload = list(turns(sample, protocol))
        for offset in range(0, len(payload), BATCH):
            chunk = payload[offset : offset + BATCH]
            data, _ = client.expect("POST", "/memory/batch", body={"memories": [item for _, item in chunk]})
            for (dia_id, _), memory_id in zip(chunk, result_ids(data), strict=True):
                turn_of[memory_id].add((sample["sample_id"], dia_id))
            count += len(chunk)
        log(f"stored {sample['sample_id']}: {len(payload)} turns")
    return turn_of, count / (time.perf_counter() - started)


def stored_turns(database_url):
    """{memory id: {(sample id, dia_id)}} read back from a reused database (tags hold both)."""
    turn_of = defaultdict(set)
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT m.id::text, m.tags FROM memories_memory m JOIN auth_user u ON u.id = m.owner_id "
            "WHERE u.username = %s",
            [USERNAME],
        ).fetchall()
    for memory_id, tags in rows:
        sample = next((tag for tag in tags if tag.startswith("conv-")), None)
        for tag in tags:
            if EVIDENCE.fullmatch(tag.upper()):
                turn_of[memory_id].add((sample, tag.upper()))
    return turn_of


def enrich(database_url, server_env):
    """Run the queued enrichment (PRECEDED_BY, SIMILAR_TO, entity tags) as the job worker would,
    with the server's settings."""
    started = time.perf_counter()
    start_worker(database_url, "--one-shot", extra_env=server_env).wait(timeout=3600)
    with psycopg.connect(database_url) as conn:
        left = conn.execute("SELECT count(*) FROM graph_enrichment WHERE status = 'pending'").fetchone()[0]
    log(f"enrichment ran in {time.perf_counter() - started:.1f} s ({left} memories left pending)")


def questions(samples, every=1):
    """(sample id, qa, evidence) of the answerable questions; every `every`-th one."""
    count = 0
    for sample in samples:
        for qa in sample["qa"]:
            if qa.get("category") == 5:
                continue
            evidence = {f"D{a}:{b}" for a, b in EVIDENCE.findall(" ".join(qa.get("evidence", [])))}
            if evidence:
                if count % every == 0:
                    yield sample["sample_id"], qa, evidence
                count += 1


def evaluate(client, samples, turn_of, extra, every):
    hits = defaultdict(lambda: defaultdict(list))
    folds = defaultdict(lambda: defaultdict(list))
    client_ms, server_ms, rows = [], [], []
    for sample_id, qa, evidence in questions(samples, every):
        params = {"query": qa["question"], "tags": sample_id, "limit": max(KS), **extra}
        data, elapsed = client.expect("GET", "/recall", params=params)
        client_ms.append(elapsed)
        server_ms.append(data.get("query_time_ms", 0))
        ranked = []
        for result in data["results"]:
            found = {dia for sample, dia in turn_of.get(str(result["id"]), ()) if sample == sample_id}
            ranked.append(sorted(found))
        for k in KS:
            got = set().union(*ranked[:k]) if ranked else set()
            share = len(got & evidence) / len(evidence)
            hits["overall"][k].append(share)
            hits[CATEGORIES[qa["category"]]][k].append(share)
            if k == 5:
                folds[sample_id]["overall"].append(share)
                folds[sample_id][CATEGORIES[qa["category"]]].append(share)
        rows.append(
            {
                "sample": sample_id,
                "category": qa["category"],
                "question": qa["question"],
                "evidence": sorted(evidence),
                "ranked": ranked,
            }
        )
    recall = {
        group: {
            "questions": len(by_k[KS[0]]),
            **{f"recall@{k}": round(float(np.mean(by_k[k])), 3) for k in KS},
        }
        for group, by_k in hits.items()
    }
    return recall, summarize_ms(client_ms), summarize_ms(server_ms), rows, folds


def cross_validation(folds, baseline=None):
    """Leave-one-conversation-out: recall@5 of each held-out conversation (overall and per
    category) and the mean, min and max over the folds; against a `baseline` (an earlier
    cross_validation), each fold's change and whether the change is kept."""
    table = {
        sample: {group: round(float(np.mean(shares)), 3) for group, shares in sorted(by_group.items())}
        for sample, by_group in sorted(folds.items())
    }
    overall = [fold["overall"] for fold in table.values()]
    report = {
        "folds": table,
        "recall@5": {
            "mean": round(float(np.mean(overall)), 3),
            "min": min(overall),
            "max": max(overall),
        },
    }
    if baseline:
        change = {
            sample: round(fold["overall"] - baseline["folds"][sample]["overall"], 3)
            for sample, fold in table.items()
            if sample in baseline["folds"]
        }
        gain = round(report["recall@5"]["mean"] - baseline["recall@5"]["mean"], 3)
        report["against_baseline"] = {
            "mean_change": gain,
            "fold_change": change,
            "kept": gain > 0 and min(change.values(), default=0) >= -CV_MAX_FOLD_LOSS,
        }
    return report


def measure(args, samples, protocol, extra, server_env):
    """Load (unless reused) and evaluate one ingestion protocol; answers its report section."""
    database_url = f"{args.database_url}_{protocol}"
    reuse = args.reuse and bool(_has_data(database_url))
    if not reuse:
        ensure_database(database_url, fresh=True)
    token, _ = issue_token(database_url, USERNAME)
    with running_server(database_url, args.port, args.workers, server_env) as base_url:
        client = Client(base_url, token)
        if reuse:
            turn_of, store_rate = stored_turns(database_url), None
        else:
            turn_of, store_rate = store(client, samples, protocol)
        enrich(database_url, server_env)
        recall, latency, server_latency, rows, folds = evaluate(client, samples, turn_of, extra, args.every)
        client.close()
    if args.dump:
        args.dump.with_suffix(f".{protocol}.json").write_text(json.dumps(rows, indent=1))
    overall = recall["overall"]
    log(
        f"LoCoMo ({protocol}): "
        + ", ".join(f"R@{k} {overall[f'recall@{k}']}" for k in KS)
        + f"; p50 {latency['p50_ms']} ms, p95 {latency['p95_ms']} ms"
    )
    cv = {}
    if args.cv:
        baseline = args.baseline and json.loads(args.baseline.read_text())["protocols"][protocol]["cv"]
        cv = {"cv": cross_validation(folds, baseline)}
        log(f"LoCoMo ({protocol}) leave-one-conversation-out R@5: {cv['cv']['recall@5']}")
    return {
        **cv,
        "memories": len(turn_of),
        "store_turns_per_second": round(store_rate, 1) if store_rate else None,
        "recall": {"overall": recall.pop("overall"), **dict(sorted(recall.items()))},
        "latency": latency,
        "server_query_time": server_latency,
        "target_met": overall["recall@5"] >= TARGET_RECALL_AT_5,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="locomo-dev.json")
    parser.add_argument("--database-url", default=LOCOMO_DATABASE_URL, help="the protocol is appended")
    parser.add_argument("--protocol", choices=[*PROTOCOLS, "both"], default="both")
    parser.add_argument("--reuse", action="store_true", help="keep the loaded database (compare settings)")
    parser.add_argument("--samples", help="comma-separated sample ids (default: all)")
    parser.add_argument("--every", type=int, default=1, help="ask every K-th question only")
    parser.add_argument("--port", type=int, default=BENCH_PORT + 3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="recall parameter")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="server setting")
    parser.add_argument("--cv", action="store_true", help="leave-one-conversation-out folds")
    parser.add_argument("--baseline", type=Path, help="an earlier --cv report to compare against")
    parser.add_argument(
        "--dump", type=Path, help="write each question's ranked dia_ids to PATH.<protocol>.json"
    )
    args = parser.parse_args()
    samples = load(args.path)
    if args.samples:
        wanted = set(args.samples.split(","))
        samples = [sample for sample in samples if sample["sample_id"] in wanted]
    extra = dict(item.split("=", 1) for item in args.param)
    server_env = dict(item.split("=", 1) for item in args.env)
    protocols = PROTOCOLS if args.protocol == "both" else [args.protocol]
    emit(
        {
            "benchmark": "locomo",
            "data": args.path.name,
            "conversations": [sample["sample_id"] for sample in samples],
            "every_kth_question": args.every,
            "precomputed_vectors": False,
            "recall_parameters": {"limit": max(KS), **extra},
            "server_settings": server_env,
            "protocols": {
                protocol: measure(args, samples, protocol, extra, server_env) for protocol in protocols
            },
            "target": {"recall@5": TARGET_RECALL_AT_5},
            "reference": {"mcp-memory-service (its README)": 0.497},
            "machine": machine(),
        }
    )


def _has_data(database_url):
    try:
        with psycopg.connect(database_url) as conn:
            return conn.execute("SELECT count(*) FROM memories_memory").fetchone()[0]
    except psycopg.Error:
        return 0


if __name__ == "__main__":
    main()
