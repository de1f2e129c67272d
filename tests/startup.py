"""Start Django in a new process with some environment variables, as the service starts."""

import os
import subprocess
import sys

from django.conf import settings

START = "import django; django.setup()"


def start_with(code=START, **variables):
    """The finished process of `code` (after django.setup()) run with these variables set."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memsite.settings", **variables}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True
    )
