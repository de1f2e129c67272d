"""Export and import: throughput and peak memory of GET /export, manage.py export_memories and
manage.py import_memories.

    .venv/bin/python -m bench.portability                                   # 100,000 then 1,000,000
    .venv/bin/python -m bench.portability --sizes 100000
    .venv/bin/python -m bench.portability --sizes 1000000 --import-at "" --reuse

For each size, `memsite_portbench_<size>` is re-created (`--reuse` keeps it when its owner already
holds that many memories) and filled with bench.seed (user `portbench`, precomputed vectors) and
bench.graph_seed (`--associations` random associations per memory, graph rebuilt). Then:

- `manage.py export_memories --owner portbench --output FILE` in a process of its own: seconds,
  memories/s, and that process's RSS (sampled every 50 ms) at its peak and while it writes, beside
  the same command exporting an owner
  with no memory (the process's start and Django's own footprint);
- `GET /export` from `make run`'s server (gunicorn, 2 uvicorn workers) on `--port`, read to its end
  as plain JSON Lines and gzip-compressed: seconds, memories/s, and the RSS of the web worker that
  served it (sampled every 50 ms) above its RSS before the request;
- at the sizes of `--import-at` (100,000): the command's file imported into a new owner with
  `manage.py import_memories` (take-in and every batch: embedding, store, associations,
  assessments; the enrichment jobs it queues are left queued), with the model's own batch
  embedding throughput measured just before and after in this process on the file's first
  `--floor-texts` contents, 256 at a time as the import embeds them: the floor of any import.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from http.client import HTTPConnection
from urllib.parse import urlsplit

import psycopg

from bench.client import ROOT, database_url, emit, ensure_database, issue_token, log, machine, running_server
from bench.client import server_environment as environment
from bench.graph_seed import seed_associations
from bench.seed import seed

OWNER = "portbench"
EMPTY_OWNER = "portbench-empty"
IMPORT_BATCH = 256
READ_CHUNK = 1024 * 1024


def owner_count(url, username):
    try:
        with psycopg.connect(url) as conn:
            row = conn.execute(
                "SELECT count(m.id) FROM auth_user u LEFT JOIN memories_memory m ON m.owner_id = u.id "
                "WHERE u.username = %s",
                [username],
            ).fetchone()
    except psycopg.OperationalError:
        return None
    return row[0] if row else None


def fill(url, size, associations_per_memory, reuse):
    """The database with `size` memories for OWNER and their associations; answers the load report."""
    if reuse and owner_count(url, OWNER) == size:
        log(f"Reusing {url.rsplit('/', 1)[-1]} ({size:,} memories)")
        return {"reused": True}
    ensure_database(url, fresh=True)
    memories = seed(url, size, OWNER)
    memories.pop("token")
    associations = seed_associations(url, size * associations_per_memory, OWNER)
    issue_token(url, EMPTY_OWNER)
    return {
        "reused": False,
        "seed_seconds": memories["seconds_total"],
        "associations": associations["inserted_associations"],
        "associations_seconds": associations["seconds_copy"] + associations["seconds_graph_rebuild"],
    }


def run_command(url, *args, output=None):
    """Run manage.py `args` on `url`; answers seconds and the process's RSS (MB, sampled every 50 ms):
    its peak and, with `output`, when the first bytes reached `output` and at most after that."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environment(url), stdout=subprocess.DEVNULL
    )
    rss = {}
    with RssSampler([process.pid], until=lambda: process.poll() is not None) as sampler:
        while output and process.poll() is None and not (os.path.exists(output) and os.path.getsize(output)):
            time.sleep(0.05)
        if output:
            rss["rss_when_writing_began_mb"] = round(vm_rss_mb(process.pid), 1)
            before_writing = sampler.peaks[process.pid]
            sampler.peaks[process.pid] = rss["rss_when_writing_began_mb"]
        process.wait()
    if output:
        rss["rss_peak_while_writing_mb"] = round(sampler.peaks[process.pid], 1)
        sampler.peaks[process.pid] = max(before_writing, sampler.peaks[process.pid])
    seconds = time.perf_counter() - started
    if process.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} exited with {process.returncode}")
    return seconds, round(sampler.peaks[process.pid], 1), rss


def line_counts(path):
    counts = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            kind = json.loads(line)["kind"]
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def export_command(url, size, path):
    empty_seconds, empty_rss, _ = run_command(
        url, "export_memories", "--owner", EMPTY_OWNER, "--output", path, "-v", "0"
    )
    os.remove(path)
    seconds, rss, writing = run_command(
        url, "export_memories", "--owner", OWNER, "--output", path, "-v", "0", output=path
    )
    counts = line_counts(path)
    assert counts["memory"] == size, counts
    return {
        "seconds": round(seconds, 1),
        "memories_per_second": round(size / seconds),
        "lines_per_second": round(sum(counts.values()) / seconds),
        "lines": counts,
        "megabytes": round(os.path.getsize(path) / 2**20, 1),
        "peak_rss_mb": rss,
        **writing,
        "rss_growth_while_writing_mb": round(
            writing["rss_peak_while_writing_mb"] - writing["rss_when_writing_began_mb"], 1
        ),
        "empty_owner": {"seconds": round(empty_seconds, 1), "peak_rss_mb": empty_rss},
        "peak_rss_above_empty_owner_mb": round(rss - empty_rss, 1),
    }


def vm_rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def web_workers():
    """The pids of the gunicorn workers of the server this process started."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    children.setdefault(int(stat.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except OSError:
                continue
    return [worker for master in children.get(os.getpid(), []) for worker in children.get(master, [])]


class RssSampler:
    """The highest RSS of each of `pids`, sampled every 50 ms while the block runs."""

    def __init__(self, pids, until=None):
        self.peaks = {pid: vm_rss_mb(pid) for pid in pids}
        self.before = dict(self.peaks)
        self.until = until or (lambda: False)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def sample(self):
        while not self.done.wait(0.05) and not self.until():
            for pid in self.peaks:
                self.peaks[pid] = max(self.peaks[pid], vm_rss_mb(pid))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def http_export(base_url, token, size, gzip):
    """GET /export read to its end; answers seconds, bytes, memories and the web workers' RSS."""
    parts = urlsplit(base_url)
    connection = HTTPConnection(parts.hostname, parts.port, timeout=3600)
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip" if gzip else "identity"}
    workers = web_workers()
    decompress = zlib.decompressobj(31) if gzip else None
    received = memories = 0
    tail = b""
    with RssSampler(workers) as sampler:
        started = time.perf_counter()
        connection.request("GET", "/export", headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            raise RuntimeError(f"GET /export answered {response.status}")
        while chunk := response.read(READ_CHUNK):
            received += len(chunk)
            text = tail + (decompress.decompress(chunk) if gzip else chunk)
            lines = text.split(b"\n")
            tail = lines.pop()
            memories += sum(line.startswith(b'{"kind":"memory"') for line in lines)
        seconds = time.perf_counter() - started
    connection.close()
    assert memories == size, memories
    growth = {pid: round(sampler.peaks[pid] - sampler.before[pid], 1) for pid in workers}
    return {
        "content_encoding": "gzip" if gzip else "identity",
        "seconds": round(seconds, 1),
        "memories_per_second": round(size / seconds),
        "megabytes_received": round(received / 2**20, 1),
        "worker_rss_before_mb": [round(sampler.before[pid], 1) for pid in workers],
        "worker_rss_peak_mb": [round(sampler.peaks[pid], 1) for pid in workers],
        "serving_worker_rss_growth_mb": max(growth.values()),
    }


def embedding_floor(path, texts):
    """The model's batch embedding throughput on the file's first `texts` contents (texts/s)."""
    from memories import embeddings

    contents = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["kind"] == "memory":
                contents.append(record["content"])
                if len(contents) == texts:
                    break
    embeddings.embed_many(contents[:IMPORT_BATCH])  # the session for batches is built once
    started = time.perf_counter()
    for start in range(0, len(contents), IMPORT_BATCH):
        embeddings.embed_many(contents[start : start + IMPORT_BATCH])
    return round(len(contents) / (time.perf_counter() - started))


def import_file(url, size, path, floor_texts):
    username = f"portbench-import-{time.strftime('%Y%m%dT%H%M%S')}"
    issue_token(url, username)
    floor_before = embedding_floor(path, floor_texts)
    log(f"  batch embedding floor: {floor_before} memories/s")
    seconds, rss, _ = run_command(url, "import_memories", path, "--owner", username, "-v", "0")
    floor_after = embedding_floor(path, floor_texts)
    with psycopg.connect(url) as conn:
        imported, skipped, failed, counts = conn.execute(
            "SELECT r.imported, r.skipped, r.failed, r.counts FROM portability_importrun r "
            "JOIN auth_user u ON u.id = r.owner_id WHERE u.username = %s",
            [username],
        ).fetchone()
    memories = counts["memory"]["imported"]
    assert memories == size, counts
    return {
        "owner": username,
        "seconds": round(seconds, 1),
        "memories_per_second": round(memories / seconds, 1),
        "records_per_second": round(imported / seconds, 1),
        "imported": imported,
        "skipped": skipped,
        "failed": failed,
        "counts": counts,
        "peak_rss_mb": rss,
        "batch_embedding_floor_memories_per_second": {"before": floor_before, "after": floor_after},
        "floor": f"the model alone, {IMPORT_BATCH} texts at a time, on {floor_texts} of the file's contents",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="memories of the exported owner")
    parser.add_argument("--import-at", default="100000", help="sizes whose export is imported too")
    parser.add_argument("--associations", type=int, default=1, help="associations per memory")
    parser.add_argument("--floor-texts", type=int, default=4096, help="texts for the embedding floor")
    parser.add_argument("--reuse", action="store_true", help="keep a database that holds the size already")
    parser.add_argument("--port", type=int, default=8145)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size]
    import_at = {int(size) for size in args.import_at.split(",") if size}

    os.environ.update(environment(database_url(f"memsite_portbench_{sizes[0]}")))
    import django

    django.setup()
    report = {"benchmark": "portability", "precomputed_vectors": True, "runs": []}
    for size in sizes:
        url = database_url(f"memsite_portbench_{size}")
        run = {"memories": size, "database": url.rsplit("/", 1)[-1]}
        run["load_before"] = machine()["load_average_1_5_15"]
        log(f"{size:,} memories: filling {run['database']}")
        run["fill"] = fill(url, size, args.associations, args.reuse)
        with tempfile.TemporaryDirectory(prefix="portbench-") as scratch:
            path = os.path.join(scratch, "export.jsonl")
            log("  manage.py export_memories")
            run["export_command"] = export_command(url, size, path)
            log(f"  {run['export_command']}")
            token, _ = issue_token(url, OWNER)
            with running_server(url, args.port) as base_url:
                run["export_http"] = []
                for encoding in ("identity", "gzip") * 2:
                    log(f"  GET /export ({encoding})")
                    run["export_http"].append(http_export(base_url, token, size, encoding == "gzip"))
                    log(f"  {run['export_http'][-1]}")
            if size in import_at:
                log("  manage.py import_memories")
                run["import_command"] = import_file(url, size, path, args.floor_texts)
                log(f"  {run['import_command']}")
        run["load_after"] = machine()["load_average_1_5_15"]
        report["runs"].append(run)
    report["vectors"] = (
        "bench.seed's: real all-MiniLM-L6-v2 embeddings of 4096 generated sentences plus noise; "
        "exports carry no vectors, an import embeds every memory with the real model"
    )
    report["machine"] = machine()
    emit(report)


if __name__ == "__main__":
    main()
