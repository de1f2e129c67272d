"""The JSON that mem0's `get_all` returns: `{"results": [item, ...]}` (older versions, and the
hosted platform, answer the bare list). Each item has `id`, `memory` (the text), `hash`,
`metadata`, `created_at`, `updated_at` (ISO 8601), the ids mem0 scopes memories by (`user_id`,
`agent_id`, `run_id`, `actor_id`, `role`) when set, and on the platform `categories`.

The owner of an import stands for mem0's user, so `user_id` only goes to metadata; `agent_id` and
`run_id` become the tags `agent:<id>` and `run:<id>` as well, so recall's tag filter narrows to
one agent or one run the way mem0's filters do; `categories` become tags.
"""

import json

from memsite.errors import Invalid
from portability.records import FORMAT, VERSION

NAME = "mem0"
SCOPES = ("user_id", "agent_id", "run_id", "actor_id", "role")
TAGGED_SCOPES = {"agent_id": "agent", "run_id": "run"}


def _line(record):
    return json.dumps(record, ensure_ascii=False) + "\n"


def lines(path):
    try:
        with open(path, "rb") as stream:
            data = json.load(stream)
    except (ValueError, UnicodeDecodeError):
        raise Invalid(f"The file is not {NAME} JSON: it does not parse") from None
    items = data.get("results") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise Invalid(f'The file is not {NAME} JSON: expected a list of memories or {{"results": [...]}}')
    yield _line({"kind": "header", "format": FORMAT, "version": VERSION, "source": NAME})
    for item in items:
        yield _line(_memory(item) if isinstance(item, dict) else {"kind": "memory", "id": None})


def _memory(item):
    peer = {name: item[name] for name in ("id", "hash", *SCOPES) if item.get(name) is not None}
    tags = [f"{prefix}:{item[name]}" for name, prefix in TAGGED_SCOPES.items() if item.get(name)]
    categories = item.get("categories")
    if isinstance(categories, list):
        tags += [category for category in categories if isinstance(category, str)]
    metadata = item.get("metadata")
    return {
        "kind": "memory",
        "id": None if item.get("id") is None else f"{NAME}:{item['id']}",
        "content": item.get("memory"),
        "tags": tags,
        "metadata": {**(metadata if isinstance(metadata, dict) else {}), NAME: peer},
        "source_type": "bootstrapped",
        "source_id": NAME,
        "created_at": item.get("created_at"),
        "updated_at": item.get("updated_at"),
    }
