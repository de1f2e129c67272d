"""Embedded PostgreSQL 17 with pgvector and Apache AGE, from a cached Debian 13 root.

Usage: python -m memsite.embedded_db {start,stop,status,url} [--replica]

With --replica the command acts on a hot standby of the embedded server instead: a streaming
replica made with `pg_basebackup -R`, with its own port and data directory, for trying out and
testing read replicas (DATABASE_REPLICA_URLS). Stopping the server stops its replica first.

Debian 12 packages neither pgvector nor AGE; Debian 13 packages both for PostgreSQL 17. The first
start builds a minimal Debian 13 root with debootstrap (cached once per machine, outside the
checkout), installs the three packages there, and keeps the data directory inside the checkout
(bind-mounted into the root). Only the standard library is used: this runs before the virtualenv.

Environment: MEMSITE_PG_ROOT (cache of the Debian root), MEMSITE_PG_PORT (default 54329),
MEMSITE_PG_DATA (default .pgdata in the checkout), MEMSITE_PG_REPLICA_PORT (default the port + 1;
the replica's data directory is `replica` beside the server's `data`), MEMSITE_PG_SHARED_BUFFERS
(PostgreSQL's buffer cache, a size such as 512MB or 6GB; by default a quarter of the machine's
memory, up to 8GB; docs/deploy.md says how to size it).
"""

import argparse
import fcntl
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
ROOT = Path(os.environ.get("MEMSITE_PG_ROOT", "/var/cache/memsite/pg17-trixie"))


def port_from(name, default):
    """The port in environment variable `name`, checked: 1024 to 65535."""
    value = os.environ.get(name) or str(default)
    if not value.isdigit() or not 1024 <= int(value) <= 65535:
        sys.exit(f"embedded-db: {name}={value!r} must be a port number from 1024 to 65535")
    return int(value)


PORT = port_from("MEMSITE_PG_PORT", 54329)
REPLICA_PORT = port_from("MEMSITE_PG_REPLICA_PORT", PORT + 1)
DATA_HOST = Path(os.environ.get("MEMSITE_PG_DATA", CHECKOUT / ".pgdata")).resolve()
SHARED_BUFFERS = os.environ.get("MEMSITE_PG_SHARED_BUFFERS", "")
DATABASE = "memsite"
PACKAGES = ["postgresql-17", "postgresql-17-pgvector", "postgresql-17-age"]
BIN = "/usr/lib/postgresql/17/bin"


def shared_buffers():
    """MEMSITE_PG_SHARED_BUFFERS, checked: whole megabytes or gigabytes, 128MB to 1TB.

    Unset, a quarter of the machine's memory (PostgreSQL's own advice), from 128MB to 8GB: at
    100,000 memories the memory table and its indexes take about 1GB.
    """
    if not SHARED_BUFFERS:
        quarter = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2**20
        return f"{min(max(quarter, 128), 8 * 1024)}MB"
    match = re.fullmatch(r"([0-9]+)(MB|GB)", SHARED_BUFFERS)
    megabytes = match and int(match[1]) * (1024 if match[2] == "GB" else 1)
    if not megabytes or not 128 <= megabytes <= 1024 * 1024:
        sys.exit(
            f"embedded-db: MEMSITE_PG_SHARED_BUFFERS={SHARED_BUFFERS!r} must be a size from 128MB "
            "to 1024GB, written as a whole number and MB or GB (for example 512MB or 6GB)"
        )
    return SHARED_BUFFERS


def port_taken(port):
    """Whether a program listens on the loopback `port` (a closing connection does not count)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
        return False


def server_options(port):
    """The server's settings; a replica gets the same ones (a hot standby needs max_connections
    at least the primary's, and AGE preloaded to read the graph)."""
    return (
        f"-p {port} -c listen_addresses=127.0.0.1 -c dynamic_shared_memory_type=mmap"
        f" -c shared_preload_libraries=age -c shared_buffers={shared_buffers()} -c maintenance_work_mem=1GB"
        " -c max_connections=200 -c max_slot_wal_keep_size=1GB"
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


def bind_mount(source, target):
    """Show the folder `source` at `target`.

    A mount left at `target` by an earlier checkout at the same path whose folder was deleted since
    still shows that deleted, empty folder (nothing can be created in it): it is replaced.
    """
    source.mkdir(parents=True, exist_ok=True)
    target.mkdir(parents=True, exist_ok=True)
    if is_mounted(target):
        shown, wanted = target.stat(), source.stat()
        if (shown.st_dev, shown.st_ino) == (wanted.st_dev, wanted.st_ino):
            return
        log(f"replacing a stale mount of a deleted folder at {target}")
        subprocess.run(["umount", "--lazy", str(target)], check=True)
    subprocess.run(["mount", "--bind", str(source), str(target)], check=True)


def ensure_mount():
    bind_mount(DATA_HOST, ROOT / MOUNT_IN_ROOT.lstrip("/"))
    subprocess.run(["chroot", str(ROOT), "chown", "postgres:postgres", MOUNT_IN_ROOT], check=True)


def as_postgres(*args, **kwargs):
    return subprocess.run(["chroot", "--userspec=postgres:postgres", str(ROOT), *args], **kwargs)


class Server:
    """One PostgreSQL server of the checkout: the primary (`data`) or its replica (`replica`)."""

    def __init__(self, name, port, variable):
        self.name, self.port, self.variable = name, port, variable
        self.data = DATA_HOST / name
        self.inside = f"{MOUNT_IN_ROOT}/{name}"
        self.label = "replica" if name == "replica" else "server"

    def pg_ctl(self, *args, **kwargs):
        return as_postgres(f"{BIN}/pg_ctl", "-D", self.inside, *args, **kwargs)

    def running(self):
        if not (self.data / "PG_VERSION").exists() or not (ROOT / BIN.lstrip("/")).exists():
            return False
        ensure_mount()
        return self.pg_ctl("status", stdout=subprocess.DEVNULL).returncode == 0

    def launch(self):
        """Start the server on its data directory (already initialised)."""
        if self.pg_ctl("status", stdout=subprocess.DEVNULL).returncode == 0:
            log(f"{self.label} already running on 127.0.0.1:{self.port}")
            return
        if port_taken(self.port):
            sys.exit(
                f"embedded-db: port {self.port} of 127.0.0.1 is taken by another program: "
                f"set {self.variable} to a free port"
            )
        stale = self.data / "postmaster.pid"
        if stale.exists():
            log("removing stale postmaster.pid")
            stale.unlink()
        result = self.pg_ctl(
            "-l",
            f"{MOUNT_IN_ROOT}/{self.log_name}",
            "-w",
            "-t",
            "60",
            "-o",
            server_options(self.port),
            "start",
            stdout=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            log_tail = (DATA_HOST / self.log_name).read_text().splitlines()[-15:]
            sys.exit(f"embedded-db: PostgreSQL ({self.label}) did not start:\n" + "\n".join(log_tail))
        log(f"{self.label} started on 127.0.0.1:{self.port}")

    @property
    def log_name(self):
        return "postgres.log" if self.name == "data" else f"postgres-{self.name}.log"

    def stop(self):
        if self.running():
            self.pg_ctl("-m", "fast", "-w", "stop", stdout=subprocess.DEVNULL, check=True)
            log(f"{self.label} stopped")
        else:
            log(f"{self.label} not running")

    def status(self):
        if self.running():
            log(f"{self.label} running on 127.0.0.1:{self.port}, data in {self.data}")
            return 0
        log(f"{self.label} not running")
        return 3


PRIMARY = Server("data", PORT, "MEMSITE_PG_PORT")
REPLICA = Server("replica", REPLICA_PORT, "MEMSITE_PG_REPLICA_PORT")
REPLICA_SLOT = "memsite_replica"


# How the tools reach the embedded server: loopback, its port, as the superuser.
SERVER_LOGIN = ("-h", "127.0.0.1", "-p", str(PORT), "-U", "postgres")


def psql(sql):
    return as_postgres(
        f"{BIN}/psql",
        *SERVER_LOGIN,
        "-d",
        "postgres",
        "-tAc",
        sql,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def start():
    ensure_root()
    ensure_mount()
    if not (PRIMARY.data / "PG_VERSION").exists():
        log(f"initialising data directory {PRIMARY.data}")
        as_postgres(
            f"{BIN}/initdb",
            "-D",
            PRIMARY.inside,
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
    PRIMARY.launch()
    if psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'") != "1":
        psql(f"CREATE DATABASE {DATABASE}")
        log(f"created database {DATABASE}")


def replica_slot_usable():
    """Whether the server still keeps the WAL the replica needs (its slot exists, not lost)."""
    status = psql(f"SELECT wal_status FROM pg_replication_slots WHERE slot_name = '{REPLICA_SLOT}'")
    return status not in ("", "lost")


def start_replica():
    """Start the hot standby, first copying the running server with pg_basebackup -R.

    initdb's pg_hba.conf lets local replication connections in, and PostgreSQL 17's default
    wal_level (replica) and max_wal_senders (10) allow streaming: the server needs no change.
    The copy streams through a replication slot, so the server keeps the WAL a stopped replica
    has yet to replay, up to max_slot_wal_keep_size (1 GB); a replica that fell further behind is
    copied again.
    """
    start()
    if (REPLICA.data / "PG_VERSION").exists() and not replica_slot_usable():
        log("the replica fell behind the WAL the server kept: copying the server again")
        REPLICA.stop()
        shutil.rmtree(REPLICA.data)
    if not (REPLICA.data / "PG_VERSION").exists():
        shutil.rmtree(REPLICA.data, ignore_errors=True)
        psql(
            f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            f"WHERE slot_name = '{REPLICA_SLOT}'"
        )
        log(f"copying the server into {REPLICA.data} (pg_basebackup)")
        result = as_postgres(
            f"{BIN}/pg_basebackup",
            *SERVER_LOGIN,
            "-D",
            REPLICA.inside,
            "-R",
            "-C",
            "-S",
            REPLICA_SLOT,
            "-X",
            "stream",
            "-c",
            "fast",
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            shutil.rmtree(REPLICA.data, ignore_errors=True)
            sys.exit(f"embedded-db: pg_basebackup failed:\n{result.stderr}")
    REPLICA.launch()


def stop():
    if REPLICA.running():
        REPLICA.stop()
    PRIMARY.stop()
    inside = ROOT / MOUNT_IN_ROOT.lstrip("/")
    if is_mounted(inside):
        subprocess.run(["umount", str(inside)], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["start", "stop", "status", "url"])
    parser.add_argument("--replica", action="store_true", help="act on the server's streaming replica")
    arguments = parser.parse_args()
    command, replica = arguments.command, arguments.replica
    if command == "url":
        print(f"postgres://postgres@127.0.0.1:{REPLICA_PORT if replica else PORT}/{DATABASE}")
        return 0
    if replica:
        return {"start": start_replica, "stop": REPLICA.stop, "status": REPLICA.status}[command]() or 0
    return {"start": start, "stop": stop, "status": PRIMARY.status}[command]() or 0


if __name__ == "__main__":
    sys.exit(main())
