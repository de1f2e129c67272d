"""Benchmark users with API tokens, created in one manage.py call (one per concurrent client)."""

import json

from bench.client import manage

CREATE_USERS = """
import json
from django.contrib.auth import get_user_model
from memsite.models import ApiToken
tokens = []
for name in {names!r}:
    user, _ = get_user_model().objects.get_or_create(username=name)
    tokens.append(ApiToken.issue(user)[1])
print(json.dumps(tokens))
"""


def issue_tokens(database_url, prefix, count):
    """One fresh token for each of the users `<prefix>-0` … `<prefix>-<count-1>`."""
    names = [f"{prefix}-{n}" for n in range(count)]
    output = manage("shell", "-c", CREATE_USERS.format(names=names), database_url=database_url)
    return json.loads(output.strip().splitlines()[-1])
