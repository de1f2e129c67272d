"""mcp-memory-service's SQLite-vec database (version 12.x), read with the standard library.

Its `memories` table holds one row per memory: content, content_hash (unique), tags (comma list),
memory_type, metadata (JSON text), created_at/updated_at (epoch seconds, and ISO copies), and
deleted_at (a tombstone: the memory was deleted). 12.x adds superseded_by (the content hash of the
memory that replaced it), confidence, version, parent_id, last_accessed and store. Embeddings live
in a separate vec0 table and are not read: memsite computes its own. The mapping is the README's
"Moving in and out" table.
"""

import json
import sqlite3
from datetime import UTC, datetime

from memsite.errors import Invalid
from portability.records import FORMAT, VERSION

NAME = "mcp-memory-service"
TYPES = {
    "decision": "Decision",
    "pattern": "Pattern",
    "preference": "Preference",
    "learning": "Insight",
    "context": "Context",
    "habit": "Habit",
    "style": "Style",
}
# Tags the service writes when a memory has none.
PLACEHOLDER_TAGS = {"untagged"}
COLUMNS = ["content_hash", "content", "tags", "memory_type", "metadata", "created_at", "updated_at"]
OPTIONAL = [
    "created_at_iso",
    "updated_at_iso",
    "superseded_by",
    "confidence",
    "version",
    "parent_id",
    "store",
]


def _time(iso, epoch):
    if iso:
        return iso
    if epoch is None:
        return None
    return datetime.fromtimestamp(float(epoch), UTC).isoformat()


def _metadata(text):
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {"unreadable_metadata": text}
    return value if isinstance(value, dict) else {"value": value}


def _line(record):
    return json.dumps(record, ensure_ascii=False) + "\n"


def record_id(content_hash):
    return f"{NAME}:{content_hash}"


def lines(path):
    """The database's live memories as memsite lines (deleted ones are left out), then an
    INVALIDATED_BY association for each memory another one superseded."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        raise Invalid(f"Cannot open {NAME} database {path}") from None
    try:
        try:
            present = {row[1] for row in connection.execute("PRAGMA table_info(memories)")}
        except sqlite3.DatabaseError:
            present = set()
        if not set(COLUMNS) <= present:
            raise Invalid(f"The file is not an {NAME} database (no memories table of version 12.x)")
        names = COLUMNS + [name for name in OPTIONAL if name in present]
        live = "WHERE deleted_at IS NULL" if "deleted_at" in present else ""
        yield _line({"kind": "header", "format": FORMAT, "version": VERSION, "source": NAME})
        supersessions = []
        for row in connection.execute(f"SELECT {', '.join(names)} FROM memories {live} ORDER BY id"):
            values = dict(zip(names, row, strict=True))
            yield _line(_memory(values))
            if values.get("superseded_by"):
                supersessions.append((values["content_hash"], values["superseded_by"]))
    finally:
        connection.close()
    for older, newer in supersessions:
        yield _line(
            {
                "kind": "association",
                "source": record_id(older),
                "target": record_id(newer),
                "type": "INVALIDATED_BY",
                "strength": 1.0,
            }
        )


def _memory(values):
    tags = [tag.strip() for tag in (values["tags"] or "").split(",") if tag.strip()]
    peer = {"content_hash": values["content_hash"], "memory_type": values["memory_type"]}
    for name in ("confidence", "version", "parent_id", "store"):
        if values.get(name) is not None:
            peer[name] = values[name]
    return {
        "kind": "memory",
        "id": record_id(values["content_hash"]),
        "content": values["content"],
        "tags": [tag for tag in tags if tag.lower() not in PLACEHOLDER_TAGS],
        "type": TYPES.get((values["memory_type"] or "").lower(), "Memory"),
        "metadata": {**_metadata(values["metadata"]), NAME: peer},
        "source_type": "bootstrapped",
        "source_id": NAME,
        "created_at": _time(values.get("created_at_iso"), values["created_at"]),
        "updated_at": _time(values.get("updated_at_iso"), values["updated_at"]),
    }
