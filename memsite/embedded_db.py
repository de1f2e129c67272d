"""Embedded PostgreSQL 17 with pgvector and Apache AGE, from a cached Debian 13 root.

Usage: python -m memsite.embedded_db {start,stop,status,url}

Debian 12 packages neither pgvector nor AGE; Debian 13 packages both for PostgreSQL 17. The first
start builds a minimal Debian 13 root with debootstrap (cached once per machine, outside the
checkout), installs the three packages there, and keeps the data directory inside the checkout
(bind-mounted into the root). Only the standard library is used: this runs before the virtualenv.

Environment: MEMSITE_PG_ROOT (cache of the Debian root), MEMSITE_PG_PORT (default 54329),
MEMSITE_PG_DATA (default .pgdata in the checkout).
"""

import argparse
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
ROOT = Path(os.environ.get("MEMSITE_PG_ROOT", "/var/cache/memsite/pg17-trixie"))
PORT = int(os.environ.get("MEMSITE_PG_PORT", "54329"))
DATA_HOST = Path(os.environ.get("MEMSITE_PG_DATA", CHECKOUT / ".pgdata")).resolve()
DATABASE = "memsite"
PACKAGES = ["postgresql-17", "postgresql-17-pgvector", "postgresql-17-age"]
BIN = "/usr/lib/postgresql/17/bin"
SERVER_OPTIONS = (
    f"-p {PORT} -c listen_addresses=127.0.0.1 -c dynamic_shared_memory_type=mmap"
    " -c shared_preload_libraries=age -c shared_buffers=512MB -c maintenance_work_mem=1GB"
    " -c max_connections=200"
)
# The checkout's data folder appears inside the root under a name unique to the checkout.
MOUNT_IN_ROOT = "/srv/memsite-" + hashlib.sha1(str(DATA_HOST).encode()).hexdigest()[:12]


def log(message):
    print(f"embedded-db: {message}", flush=True)


def debian_mirror():
    """The Debian mirror this host already uses, read from its apt sources."""
    sources = Path("/etc/apt")
    texts = [p.read_text() for p in sources.glob("sources.list.d/*.sources")]
    if (sources / "sources.list").exists():
        texts.append((sources / "sources.list").read_text())
    for text in texts:
        for match in re.finditer(r"(?:^URIs:\s*|^deb\s+(?:\[[^]]*\]\s+)?)(\S+)", text, re.M):
            uri = match.group(1).rstrip("/")
            if uri.endswith("/debian"):
                return uri
    sys.exit("embedded-db: no Debian mirror found in /etc/apt; set DATABASE_URL instead")


def build_root():
    """Create the cached Debian 13 root with PostgreSQL 17, pgvector and AGE."""
    staging = ROOT.with_name(ROOT.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    build_log = ROOT.with_name(ROOT.name + ".build.log")
    log(f"building Debian 13 root in {ROOT} (once per machine, about a minute; log: {build_log})")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(build_log, "w") as output:

        def step(*args):
            try:
                subprocess.run(args, check=True, env=env, stdout=output, stderr=output)
            except subprocess.CalledProcessError:
                output.flush()
                tail = "\n".join(build_log.read_text().splitlines()[-20:])
                sys.exit(f"embedded-db: {' '.join(args[:3])} failed:\n{tail}")

        if shutil.which("debootstrap") is None:
            step("apt-get", "update")
            step("apt-get", "install", "-y", "debootstrap")
        step("debootstrap", "--variant=minbase", "trixie", str(staging), debian_mirror())
        policy = staging / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
        conf = staging / "etc/postgresql-common/createcluster.conf"
        conf.parent.mkdir(parents=True, exist_ok=True)
        conf.write_text("create_main_cluster = false\n")
        step("chroot", str(staging), "apt-get", "update")
        step("chroot", str(staging), "apt-get", "install", "-y", "--no-install-recommends", *PACKAGES)
        step("chroot", str(staging), "apt-get", "clean")
    staging.rename(ROOT)


def ensure_root():
    ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(ROOT.parent / (ROOT.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (ROOT / BIN.lstrip("/") / "postgres").exists():
            build_root()


def is_mounted(path):
    target = str(path)
    with open("/proc/mounts") as mounts:
        return any(line.split()[1] == target for line in mounts)


def ensure_mount():
    DATA_HOST.mkdir(parents=True, exist_ok=True)
    inside = ROOT / MOUNT_IN_ROOT.lstrip("/")
    inside.mkdir(parents=True, exist_ok=True)
    if not is_mounted(inside):
        subprocess.run(["mount", "--bind", str(DATA_HOST), str(inside)], check=True)
    subprocess.run(["chroot", str(ROOT), "chown", "postgres:postgres", MOUNT_IN_ROOT], check=True)


def as_postgres(*args, **kwargs):
    return subprocess.run(["chroot", "--userspec=postgres:postgres", str(ROOT), *args], **kwargs)


def pg_ctl(*args, **kwargs):
    return as_postgres(f"{BIN}/pg_ctl", "-D", f"{MOUNT_IN_ROOT}/data", *args, **kwargs)


def psql(sql):
    return as_postgres(
        f"{BIN}/psql",
        "-h",
        "127.0.0.1",
        "-p",
        str(PORT),
        "-U",
        "postgres",
        "-d",
        "postgres",
        "-tAc",
        sql,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def running():
    if not (DATA_HOST / "data/PG_VERSION").exists() or not (ROOT / BIN.lstrip("/")).exists():
        return False
    ensure_mount()
    return pg_ctl("status", stdout=subprocess.DEVNULL).returncode == 0


def start():
    ensure_root()
    ensure_mount()
    if not (DATA_HOST / "data/PG_VERSION").exists():
        log(f"initialising data directory {DATA_HOST / 'data'}")
        as_postgres(
            f"{BIN}/initdb",
            "-D",
            f"{MOUNT_IN_ROOT}/data",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "-U",
            "postgres",
            check=True,
            stdout=subprocess.DEVNULL,
        )
    if pg_ctl("status", stdout=subprocess.DEVNULL).returncode == 0:
        log(f"already running on 127.0.0.1:{PORT}")
    else:
        stale = DATA_HOST / "data/postmaster.pid"
        if stale.exists():
            log("removing stale postmaster.pid")
            stale.unlink()
        result = pg_ctl(
            "-l",
            f"{MOUNT_IN_ROOT}/postgres.log",
            "-w",
            "-t",
            "60",
            "-o",
            SERVER_OPTIONS,
            "start",
            stdout=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            log_tail = (DATA_HOST / "postgres.log").read_text().splitlines()[-15:]
            sys.exit("embedded-db: PostgreSQL did not start:\n" + "\n".join(log_tail))
        log(f"started on 127.0.0.1:{PORT}")
    if psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'") != "1":
        psql(f"CREATE DATABASE {DATABASE}")
        log(f"created database {DATABASE}")


def stop():
    if running():
        pg_ctl("-m", "fast", "-w", "stop", stdout=subprocess.DEVNULL, check=True)
        log("stopped")
    else:
        log("not running")
    inside = ROOT / MOUNT_IN_ROOT.lstrip("/")
    if is_mounted(inside):
        subprocess.run(["umount", str(inside)], check=True)


def status():
    if running():
        log(f"running on 127.0.0.1:{PORT}, data in {DATA_HOST / 'data'}")
        return 0
    log("not running")
    return 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["start", "stop", "status", "url"])
    command = parser.parse_args().command
    if command == "url":
        print(f"postgres://postgres@127.0.0.1:{PORT}/{DATABASE}")
        return 0
    return {"start": start, "stop": stop, "status": status}[command]() or 0


if __name__ == "__main__":
    sys.exit(main())
