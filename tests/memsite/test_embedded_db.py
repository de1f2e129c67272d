"""The embedded server's data folder is bind-mounted into its Debian root; these tests mount
temporary folders the same way (they need root, as the embedded server does)."""

import shutil
import subprocess

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
