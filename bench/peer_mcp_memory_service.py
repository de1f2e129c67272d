"""Write a small database with the real mcp-memory-service (12.x), for the import fixture.

Run it with the interpreter of a virtualenv that has mcp-memory-service installed (never this
project's), e.g. `python -m venv peer && peer/bin/pip install mcp-memory-service==12.4.0`, then
`peer/bin/python bench/peer_mcp_memory_service.py tests/data/mcp_memory_service.db`. It stores
the memories below through the service's own storage API (SqliteVecMemoryStorage.store), updates
one and deletes one, and prints JSON with the counts.
"""

import asyncio
import json
import sys
import time

from mcp_memory_service.models.memory import Memory
from mcp_memory_service.storage.sqlite_vec import SqliteVecMemoryStorage
from mcp_memory_service.utils.hashing import generate_content_hash

DAY = 86400
# (content, tags, memory type, metadata, days ago)
MEMORIES = [
    ("The team deploys the API every Tuesday after the standup.", ["deploy", "process"], "note", {}, 90),
    ("Alice prefers dark mode in every editor.", ["preference", "alice"], "preference", {}, 80),
    (
        "Decided to use PostgreSQL 17 for the billing service.",
        ["decision", "database"],
        "decision",
        {"ticket": "BIL-12"},
        75,
    ),
    ("The staging cluster lives in eu-west-1.", ["infrastructure"], "reference", {"region": "eu-west-1"}, 70),
    ("Bob is allergic to peanuts.", ["people", "bob"], "fact", {}, 65),
    ("Run `make test` before every push.", ["process", "testing"], "instruction", {}, 60),
    ("The quarterly review is on the first Monday of April.", ["calendar"], "event", {"quarter": 2}, 55),
    ("Carol leads the search team since March.", ["people", "carol"], "fact", {}, 50),
    ("Use ruff for linting Python code.", ["tooling", "python"], "decision", {}, 45),
    ("The login page times out after 15 minutes.", ["bug", "auth"], "observation", {"severity": "low"}, 40),
    ("Renamed the repository from api-core to platform-api.", ["change"], "note", {}, 35),
    ("Grafana dashboards are in the ops folder.", ["monitoring"], "reference", {}, 30),
    ("The coffee machine on floor 3 is broken again.", [], None, {}, 25),
    (
        "Migrate the cron jobs to the job queue by June.",
        ["todo", "infrastructure"],
        "task",
        {"due": "June"},
        20,
    ),
    ("Dave works remotely from Lisbon.", ["people", "dave"], "fact", {"city": "Lisbon"}, 15),
    ("Emoji test: the release is 🚀 ready.", ["release"], "note", {}, 10),
    ("Chinese note: 部署在周二。", ["i18n"], "note", {"lang": "zh"}, 8),
    (
        "The incident on May 3rd was caused by an expired TLS certificate.",
        ["incident", "tls"],
        "event",
        {},
        6,
    ),
    ("Prefer small pull requests of under 400 lines.", ["preference", "process"], "preference", {}, 4),
    ("Temporary note that will be deleted.", ["scratch"], "note", {}, 3),
    (
        "The design doc for search v2 is in the wiki.",
        ["search", "docs"],
        "reference",
        {"link": "wiki/search-v2"},
        2,
    ),
    ("Backups run nightly at 02:00 UTC.", ["backup", "infrastructure"], "fact", {}, 1),
]


async def main(path):
    storage = SqliteVecMemoryStorage(path)
    await storage.initialize()
    now = time.time()
    hashes = []
    for content, tags, memory_type, metadata, days in MEMORIES:
        created = now - days * DAY
        memory = Memory(
            content=content,
            content_hash=generate_content_hash(content),
            tags=tags,
            memory_type=memory_type,
            metadata=metadata,
            created_at=created,
            updated_at=created,
        )
        await storage.store(memory)
        hashes.append(memory.content_hash)
    await storage.update_memory_metadata(hashes[1], {"tags": ["preference", "alice", "editor"]})
    await storage.delete(hashes[MEMORIES.index(next(m for m in MEMORIES if m[0].startswith("Temporary")))])
    print(json.dumps({"stored": len(MEMORIES), "updated": 1, "deleted": 1, "path": path}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
