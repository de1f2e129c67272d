"""The embedded server's data folder is bind-mounted into its Debian root; these tests mount
temporary folders the same way (they need root, as the embedded server does). Its settings come
from the environment and are checked before the server starts."""

import os
import shutil
import subprocess
import sys

import pytest

from memsite import embedded_db


@pytest.fixture
def folders(tmp_path):
    source, target = tmp_path / "checkout" / ".pgdata", tmp_path / "shown"
    yield source, target
    while embedded_db.is_mounted(target):
        subprocess.run(["umount", "--lazy", str(target)], check=True)


def mounts_at(target):
    with open("/proc/mounts") as mounts:
        return sum(line.split()[1] == str(target) for line in mounts)


def test_mounting_the_same_folder_twice_leaves_one_mount(folders):
    source, target = folders
    embedded_db.bind_mount(source, target)
    embedded_db.bind_mount(source, target)

    assert mounts_at(target) == 1
    (target / "data").mkdir()
    assert (source / "data").is_dir()


def test_a_mount_left_by_a_deleted_checkout_at_the_same_path_is_replaced(folders):
    source, target = folders
    embedded_db.bind_mount(source, target)
    shutil.rmtree(source.parent)

    embedded_db.bind_mount(source, target)

    (target / "data").mkdir()
    assert (source / "data").is_dir()


def server_options_with(shared_buffers):
    return subprocess.run(
        [sys.executable, "-c", "from memsite import embedded_db; print(embedded_db.server_options(5432))"],
        env={**os.environ, "MEMSITE_PG_SHARED_BUFFERS": shared_buffers},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_buffer_cache_size_comes_from_the_environment():
    result = server_options_with("6GB")
    assert result.returncode == 0
    assert "-c shared_buffers=6GB " in result.stdout


def test_the_buffer_cache_takes_a_quarter_of_the_machine_memory_by_default():
    quarter = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2**20
    result = server_options_with("")
    assert result.returncode == 0
    assert f"-c shared_buffers={min(max(quarter, 128), 8192)}MB " in result.stdout


@pytest.mark.parametrize("size", ["6 GB", "64MB", "2TB", "lots", "0GB"])
def test_a_buffer_cache_size_out_of_range_stops_the_server_start_naming_the_variable(size):
    result = server_options_with(size)
    assert result.returncode != 0
    assert "MEMSITE_PG_SHARED_BUFFERS" in result.stderr
    assert "128MB to 1024GB" in result.stderr


@pytest.mark.parametrize("variable", ["MEMSITE_PG_PORT", "MEMSITE_PG_REPLICA_PORT"])
@pytest.mark.parametrize("port", ["fifty", "-1", "80", "70000", "5432.5"])
def test_a_port_out_of_range_stops_the_server_start_naming_the_variable(variable, port):
    result = subprocess.run(
        [sys.executable, "-c", "import memsite.embedded_db"],
        env={**os.environ, variable: port},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert f"{variable}={port!r} must be a port number from 1024 to 65535" in result.stderr
    assert "Traceback" not in result.stderr
