"""Faults: PostgreSQL restarted under load, and a consolidation run killed mid-phase.

    .venv/bin/python -m bench.faults restart [--clients 4] [--before 8] [--after 20]
    .venv/bin/python -m bench.faults kill-consolidation [--memories 20000]
    .venv/bin/python -m bench.faults outage-under-worker [--outage 5]
    .venv/bin/python -m bench.faults killed-worker-then-run [--memories 20000] [--phase discover]

`restart` serves memsite as `make run` does (gunicorn, 2 uvicorn workers) and lets clients
store and recall while `pg_ctl restart -m fast` runs on the embedded PostgreSQL (the one of this
checkout, see memsite/embedded_db.py; not for a server given by DATABASE_URL). It reports every
status seen during the gap, whether each error was the JSON envelope, how long until requests
succeeded again, and whether every store acknowledged with 2xx is in the table afterwards.

`kill-consolidation` seeds memories, starts `manage.py consolidate --apply` and SIGKILLs it as
soon as its run record shows the relevance phase in progress. It reports the lock (free?), the
run record after the next read of the runs (failed, not running), whether the killed phase left
anything half-applied, and the status of the next run.

`outage-under-worker` runs `manage.py worker` (as `make run` does), stops the embedded PostgreSQL
for `--outage` seconds, starts it again, and reports whether the worker process survived, how long
after the database was back its heartbeat resumed and a job queued then succeeded.

`killed-worker-then-run` queues a consolidation run through the API (`POST
/api/consolidation/run`, not a dry run), SIGKILLs the worker running it in `--phase`, asks for a
dry run (202 or 409), starts a worker again and follows both runs' records and jobs until they
settle: every status each run was seen in, how long each took to settle after the restart, what
/health said meanwhile, and whether a third request is accepted afterwards. Recovery waits for the
dead worker's heartbeat to be older than memsite.jobs.STALLED_WORKER_SECONDS and for the
minute's `retry_stalled_jobs`.
"""

import argparse
import random
import signal
import subprocess
import sys
import threading
import time

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
    server_environment,
)
from bench.seed import generate_pool, seed
from bench.users import issue_tokens
from memsite import embedded_db

FAULTS_DATABASE_URL = database_url("memsite_faults")
LOCK_KEY = int.from_bytes(b"memsite\x01", "big", signed=True)
ENVELOPE_KEYS = {"status", "code", "message"}


def restart_postgres():
    """`pg_ctl restart` in fast mode: every session is ended, the server is down, then back."""
    embedded_db.PRIMARY.pg_ctl(
        "-m",
        "fast",
        "-w",
        "-t",
        "60",
        "-l",
        f"{embedded_db.MOUNT_IN_ROOT}/postgres.log",
        "restart",
        stdout=subprocess.DEVNULL,
        check=True,
    )


def client_loop(base_url, token, sentences, deadline, number, events):
    rng = random.Random(number)
    client = Client(base_url, token, timeout=60)
    n = 0
    while time.monotonic() < deadline:
        text = rng.choice(sentences)
        if rng.random() < 0.5:
            kind, method, path = "store", "POST", "/memory"
            params, body = None, {"content": f"{text} (client {number}, note {n})"}
        else:
            kind, method, path = "recall", "GET", "/recall"
            params, body = {"query": " ".join(text.split()[:6])}, None
        sent = time.monotonic()
        try:
            status, data, _ = client.request(method, path, params=params, body=body)
        except OSError:
            status, data = "connection_error", None
            time.sleep(0.05)
        memory_id = data.get("memory_id") if kind == "store" and status in (200, 201) else None
        envelope = isinstance(data, dict) and data.keys() >= ENVELOPE_KEYS and data.get("status") == "error"
        events.append({"at": sent, "kind": kind, "status": status, "envelope": envelope, "id": memory_id})
        n += 1
    client.close()


def restart_under_load(args):
    ensure_database(args.database_url, fresh=True)
    tokens = issue_tokens(args.database_url, "faults", args.clients)
    sentences = [text for text, _, _ in generate_pool(500, 5)]
    events = []
    with running_server(args.database_url, args.port, 2) as base_url:
        for token in tokens:
            Client(base_url, token).expect("GET", "/recall", params={"query": "warm up"})
        deadline = time.monotonic() + args.before + args.after
        threads = [
            threading.Thread(target=client_loop, args=(base_url, token, sentences, deadline, number, events))
            for number, token in enumerate(tokens)
        ]
        for thread in threads:
            thread.start()
        time.sleep(args.before)
        log("restarting PostgreSQL")
        restart_started = time.monotonic()
        restart_postgres()
        restart_finished = time.monotonic()
        log(f"PostgreSQL back after {restart_finished - restart_started:.1f} s")
        for thread in threads:
            thread.join()
    failures = [event for event in events if event["status"] not in (200, 201)]
    recovered = next(
        (
            e["at"]
            for e in sorted(events, key=lambda e: e["at"])
            if e["at"] > restart_finished and e["status"] in (200, 201)
        ),
        None,
    )
    statuses = {}
    for event in failures:
        statuses[str(event["status"])] = statuses.get(str(event["status"]), 0) + 1
    acknowledged = [event["id"] for event in events if event["id"]]
    with psycopg.connect(args.database_url) as conn:
        (found,) = conn.execute(
            "SELECT count(*) FROM memories_memory WHERE id = ANY(%s::uuid[])", [acknowledged]
        ).fetchone()
    return {
        "benchmark": "fault_postgres_restart",
        "clients": args.clients,
        "seconds": args.before + args.after,
        "requests": len(events),
        "restart_seconds": round(restart_finished - restart_started, 2),
        "failed_requests_by_status": statuses,
        "failed_requests_with_envelope": sum(event["envelope"] for event in failures),
        "failed_requests_without_envelope": sum(
            not event["envelope"] for event in failures if event["status"] != "connection_error"
        ),
        "first_success_after_restart_seconds": (
            None if recovered is None else round(recovered - restart_finished, 2)
        ),
        "failures_after_recovery": sum(1 for e in failures if recovered is not None and e["at"] > recovered),
        "acknowledged_stores": len(acknowledged),
        "acknowledged_stores_found": found,
        "ok": bool(found == len(acknowledged) and recovered is not None and set(statuses) <= {"503"}),
        "machine": machine(),
    }


def _run_record(conn, run_id):
    return conn.execute(
        "SELECT status, phase, error FROM quality_consolidationrun WHERE id = %s", [run_id]
    ).fetchone()


def kill_consolidation(args):
    ensure_database(args.database_url, fresh=True)
    seed(args.database_url, count=args.memories, username="faults", pool_size=256, progress=False)
    command = [sys.executable, "manage.py", "consolidate", "--apply"]
    env = server_environment(args.database_url)
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    run_id, phase_seen = None, None
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        deadline = time.monotonic() + 600
        while process.poll() is None and time.monotonic() < deadline:
            row = conn.execute(
                "SELECT id, phase FROM quality_consolidationrun "
                "WHERE status = 'running' ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row and row[1] == args.phase:
                run_id, phase_seen = row
                time.sleep(args.delay)
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
        process.wait()
        if run_id is None:
            raise RuntimeError(f"the run finished before its {args.phase} phase could be interrupted")
        log(f"killed run {run_id} in its {phase_seen} phase")
        time.sleep(0.5)  # the server notices the closed socket and ends the session
        record_after_kill = _run_record(conn, run_id)
        (lock_free,) = conn.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()
        if lock_free:
            conn.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
        (live, scored) = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE relevance_calculated_at IS NOT NULL) "
            "FROM memories_memory WHERE archived_at IS NULL"
        ).fetchone()
        subprocess.run(
            [
                sys.executable,
                "manage.py",
                "shell",
                "-c",
                "from quality.consolidation import recover_abandoned_runs; recover_abandoned_runs()",
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        record_after_read = _run_record(conn, run_id)
        started = time.monotonic()
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
        next_seconds = time.monotonic() - started
        (next_status,) = conn.execute(
            "SELECT status FROM quality_consolidationrun ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return {
        "benchmark": "fault_consolidation_killed",
        "memories": args.memories,
        "killed_in_phase": phase_seen,
        "record_right_after_kill": list(record_after_kill),
        "lock_free_after_kill": lock_free,
        "record_after_recovery": list(record_after_read),
        "killed_phase_rows_applied": f"{scored} of {live}",
        "half_applied": 0 < scored < live,
        "next_run_status": next_status,
        "next_run_seconds": round(next_seconds, 1),
        "ok": bool(
            lock_free
            and record_after_read[0] == "failed"
            and next_status == "succeeded"
            and not 0 < scored < live
        ),
        "machine": machine(),
    }


def _seconds_until(condition, deadline_seconds=300):
    started = time.monotonic()
    while time.monotonic() - started < deadline_seconds:
        try:
            if condition():
                return round(time.monotonic() - started, 2)
        except psycopg.OperationalError:
            pass
        time.sleep(0.1)
    return None


def outage_under_worker(args):
    ensure_database(args.database_url, fresh=True)
    env = server_environment(
        args.database_url, {"MEMSITE_CONSOLIDATION_CRON": "", "MEMSITE_DETECTION_CRON": ""}
    )
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    def fresh_heartbeat():
        with psycopg.connect(args.database_url, connect_timeout=2) as conn:
            return conn.execute(
                "SELECT count(*) FROM procrastinate_workers WHERE last_heartbeat > now() - interval '3 s'"
            ).fetchone()[0]

    try:
        if _seconds_until(fresh_heartbeat) is None:
            raise RuntimeError("the worker never sent a heartbeat")
        log(f"stopping PostgreSQL for {args.outage} s")
        embedded_db.PRIMARY.stop()
        time.sleep(args.outage)
        embedded_db.PRIMARY.launch()
        heartbeat_seconds = _seconds_until(fresh_heartbeat)
        queue = (
            "from memsite import jobs; from quality import tasks; print(jobs.defer(tasks.evaluate_quality))"
        )
        shell = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", queue],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        job_id = int(shell.stdout.strip().splitlines()[-1])

        def job_done():
            with psycopg.connect(args.database_url) as conn:
                status = conn.execute("SELECT status FROM procrastinate_jobs WHERE id = %s", [job_id])
                return status.fetchone()[0] == "succeeded"

        job_seconds = _seconds_until(job_done)
        survived = worker.poll() is None
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=120)
    return {
        "benchmark": "fault_outage_under_worker",
        "outage_seconds": args.outage,
        "worker_survived": survived,
        "heartbeat_back_after_database_seconds": heartbeat_seconds,
        "job_queued_after_outage_done_seconds": job_seconds,
        "worker_exit_status_on_sigterm": worker.returncode,
        "ok": bool(survived and heartbeat_seconds is not None and job_seconds is not None),
        "machine": machine(),
    }


def _worker(env):
    return subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def killed_worker_then_run(args):
    ensure_database(args.database_url, fresh=True)
    seed(args.database_url, count=args.memories, username="faults", pool_size=256, progress=False)
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        conn.execute("UPDATE auth_user SET is_staff = true WHERE username = 'faults'")
    token, _ = issue_token(args.database_url, "faults")
    env = server_environment(
        args.database_url, {"MEMSITE_CONSOLIDATION_CRON": "", "MEMSITE_DETECTION_CRON": ""}
    )
    worker = _worker(env)
    with (
        running_server(args.database_url, args.port) as base_url,
        psycopg.connect(args.database_url, autocommit=True) as conn,
    ):
        client = Client(base_url, token, timeout=60)
        first, _ = client.expect("POST", "/api/consolidation/run", (202,), body={"dry_run": False})
        first_run, first_job = first["run"]["id"], first["job_id"]
        deadline = time.monotonic() + 600
        while _run_record(conn, first_run)[1] != args.phase:
            if time.monotonic() > deadline or worker.poll() is not None:
                raise RuntimeError(f"run {first_run} never reached its {args.phase} phase")
            time.sleep(0.01)
        time.sleep(args.delay)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        log(f"killed the worker of run {first_run} in its {args.phase} phase")
        second_status, second, _ = client.request("POST", "/api/consolidation/run", body={"dry_run": True})
        second_run = second["run"]["id"] if second_status == 202 else None
        worker = _worker(env)
        restarted = time.monotonic()
        runs = [run for run in (first_run, second_run) if run is not None]
        seen = {run: [] for run in runs}
        settled = {}
        health = set()
        try:
            while len(settled) < len(runs) and time.monotonic() - restarted < args.settle:
                for run in runs:
                    status = _run_record(conn, run)[0]
                    if not seen[run] or seen[run][-1] != status:
                        seen[run].append(status)
                    if status in ("succeeded", "failed") and run not in settled:
                        settled[run] = round(time.monotonic() - restarted, 1)
                health.add(client.request("GET", "/health")[1].get("status"))
                time.sleep(0.5)
            job_status = conn.execute(
                "SELECT status FROM procrastinate_jobs WHERE id = %s", [first_job]
            ).fetchone()[0]
            third_status, _, _ = client.request("POST", "/api/consolidation/run", body={"dry_run": True})
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=120)
    return {
        "benchmark": "fault_killed_worker_then_run",
        "memories": args.memories,
        "killed_in_phase": args.phase,
        "second_request_status": second_status,
        "statuses_seen": {str(run): statuses for run, statuses in seen.items()},
        "settled_seconds_after_worker_restart": {str(run): settled.get(run) for run in runs},
        "killed_job_final_status": job_status,
        "health_statuses_seen": sorted(str(status) for status in health),
        "third_request_status": third_status,
        "ok": bool(
            len(settled) == len(runs) and job_status in ("succeeded", "failed") and third_status == 202
        ),
        "machine": machine(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "fault", choices=["restart", "kill-consolidation", "outage-under-worker", "killed-worker-then-run"]
    )
    parser.add_argument("--database-url", default=FAULTS_DATABASE_URL)
    parser.add_argument("--clients", type=int, default=4, help="restart: concurrent clients")
    parser.add_argument("--before", type=float, default=8, help="restart: seconds of load before it")
    parser.add_argument("--after", type=float, default=20, help="restart: seconds of load after it starts")
    parser.add_argument("--port", type=int, default=BENCH_PORT + 11)
    parser.add_argument("--memories", type=int, default=20_000, help="kill-consolidation: memories seeded")
    parser.add_argument("--phase", default="relevance", help="kill-consolidation: phase to interrupt")
    parser.add_argument("--delay", type=float, default=0.2, help="kill-consolidation: seconds into the phase")
    parser.add_argument("--outage", type=float, default=5, help="outage-under-worker: seconds stopped")
    parser.add_argument(
        "--settle", type=float, default=300, help="killed-worker-then-run: seconds to wait for both runs"
    )
    args = parser.parse_args()
    scenarios = {
        "restart": restart_under_load,
        "kill-consolidation": kill_consolidation,
        "outage-under-worker": outage_under_worker,
        "killed-worker-then-run": killed_worker_then_run,
    }
    report = scenarios[args.fault](args)
    log(f"{report['benchmark']}: ok={report['ok']}")
    emit(report)


if __name__ == "__main__":
    main()
