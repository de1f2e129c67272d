"""Which entities link the evidence of LoCoMo's multi-hop questions, in a database `bench.locomo`
loaded and enriched.

    .venv/bin/python -m bench.locomo --protocol session    # loads memsite_locomo_session
    .venv/bin/python -m bench.locomo_entities [PATH] [--database-url URL]

For each multi-hop question with two or more evidence turns, whether two of them carry a common
entity tag, and whether they share one that is not a speaker's name (a speaker's tag is on about
half the turns of a conversation, so it links everything). Expanding recall by the entities of the
top seeds can only reach a second evidence turn through such a tag. Prints JSON.
"""

import argparse
import itertools
from collections import defaultdict
from pathlib import Path

import psycopg

from bench.client import emit
from bench.locomo import DEFAULT_PATH, EVIDENCE, LOCOMO_DATABASE_URL, load

ENTITY = "entity:"


def entity_tags(database_url, sample_ids):
    """{(sample id, turn tag): entity tags} and {sample id: its speakers' entity tags}."""
    tags, speakers = {}, defaultdict(set)
    with psycopg.connect(database_url) as conn:
        for content, memory_tags in conn.execute("SELECT content, tags FROM memories_memory"):
            (sample,) = set(memory_tags) & sample_ids
            speakers[sample].add(ENTITY + content.split(":", 1)[0].strip().lower())
            entities = {tag for tag in memory_tags if tag.startswith(ENTITY)}
            for turn in memory_tags:
                if EVIDENCE.fullmatch(turn.upper()):
                    tags[sample, turn.upper()] = entities
    return tags, speakers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="locomo-dev.json")
    parser.add_argument("--database-url", default=f"{LOCOMO_DATABASE_URL}_session")
    args = parser.parse_args()
    samples = load(args.path)
    tags, speakers = entity_tags(args.database_url, {sample["sample_id"] for sample in samples})
    counts = {"questions": 0, "evidence_share_an_entity": 0, "evidence_share_one_not_a_speaker": 0}
    for sample in samples:
        sample_id = sample["sample_id"]
        for qa in sample["qa"]:
            turns = [f"D{a}:{b}" for text in qa["evidence"] for a, b in EVIDENCE.findall(text)]
            evidence = [tags.get((sample_id, turn)) for turn in turns if qa.get("category") == 1]
            evidence = [found for found in evidence if found is not None]
            if len(evidence) < 2:
                continue
            pairs = list(itertools.combinations(evidence, 2))
            counts["questions"] += 1
            counts["evidence_share_an_entity"] += any(a & b for a, b in pairs)
            counts["evidence_share_one_not_a_speaker"] += any((a & b) - speakers[sample_id] for a, b in pairs)
    emit({"benchmark": "locomo_entities", **counts})


if __name__ == "__main__":
    main()
