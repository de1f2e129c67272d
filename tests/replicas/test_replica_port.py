"""The embedded replica starts only on a free port, and says which variable moves it."""

import os
import socket
import subprocess
import sys

import pytest

from tests.replicas.conftest import ALIAS, ROOT, caught_up, embedded

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", ALIAS])


def test_a_replica_whose_port_another_program_listens_on_stops_naming_the_variable(replica):
    embedded("stop")
    try:
        with socket.socket() as other_program:
            other_program.bind(("127.0.0.1", 0))
            other_program.listen()
            port = other_program.getsockname()[1]
            result = subprocess.run(
                [sys.executable, "-m", "memsite.embedded_db", "start", "--replica"],
                cwd=ROOT,
                env={**os.environ, "MEMSITE_PG_REPLICA_PORT": str(port)},
                capture_output=True,
                text=True,
                timeout=300,
            )
    finally:
        embedded("start")
    caught_up()

    assert result.returncode != 0
    assert (
        f"port {port} of 127.0.0.1 is taken by another program: set MEMSITE_PG_REPLICA_PORT to a free port"
        in result.stderr
    )
    assert "Traceback" not in result.stderr
