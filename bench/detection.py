"""Inconsistency detection over 100,000 memories with planted duplicates and contradictions.

    .venv/bin/python -m bench.detection [--count 100000] [--pairs 500] [--fresh]

Grows the database `memsite_detectbench` to `count` memories of the user "detect": background
rows from `bench.seed` (generated sentences, precomputed vectors) plus planted pairs embedded for
real with the service's model: `pairs` duplicate pairs (half exact copies, half the same text
with a "Note: " prefix) and `pairs` contradiction pairs (a statement and its negation). The
planted statements use a vocabulary of their own and are kept pairwise dissimilar (cosine below
0.7), so the only true duplicates and contradictions are the planted pairs. Then it times
`detect_inconsistencies` (every owner, as the management command runs it) from an empty findings
table, and once more (the idempotent re-run), and reports precision and recall of the duplicate
and contradiction findings on the planted pairs, with the false positives split by where they
come from. Target: ≤ 120 s.
"""

import argparse
import hashlib
import os
import sys
import time

import numpy as np

from bench.client import RESULTS_DIR, ROOT, database_url, emit, ensure_database, log, machine

DATABASE_URL = database_url("memsite_detectbench")
USERNAME = "detect"

# fmt: off
NAMES = [
    "Greta", "Bruno", "Henrik", "Ottilie", "Magnus", "Rosalind", "Caspar", "Wilhelmina", "Edmund", "Beatrix",
    "Leopold", "Clementine", "Ambrose", "Philippa", "Barnaby", "Imogen", "Cornelius", "Matilda", "Ezekiel",
    "Seraphina", "Percival", "Winifred", "Thaddeus", "Genevieve", "Lysander", "Octavia", "Hester", "Florian",
]
VERBS = [
    ("can repair", "cannot repair"), ("is allowed to borrow", "is not allowed to borrow"),
    ("has visited", "has never visited"), ("will present", "won't present"),
    ("was trained to operate", "wasn't trained to operate"), ("is responsible for", "is not responsible for"),
    ("owns", "does not own"), ("likes", "doesn't like"), ("remembers", "doesn't remember"),
    ("photographed", "never photographed"), ("is insured for", "isn't insured for"),
    ("painted", "didn't paint"), ("sold", "did not sell"), ("approved", "did not approve"),
    ("inherited", "did not inherit"), ("still maintains", "no longer maintains"), ("found", "never found"),
    ("reviewed", "didn't review"), ("is qualified to inspect", "isn't qualified to inspect"),
    ("restored", "never restored"), ("can drive", "can't drive"), ("is afraid of", "is not afraid of"),
]
OBJECTS = [
    "the lighthouse generator", "the harbour crane", "a medieval manuscript",
    "the greenhouse irrigation pump", "the blue rowing boat", "the observatory telescope",
    "the bakery's bread oven", "the village clock tower", "an antique sewing machine",
    "the museum tapestry", "the school's pipe organ", "the ferry timetable", "a vintage motorcycle",
    "the orchard's cider press", "the fire station ladder", "the library's rare atlas",
    "the solar panel array", "the old windmill", "the marina fuel dock", "the theatre lighting rig",
    "a bronze statue", "the mountain cable car", "the brewery's copper kettle",
    "the hospital's MRI scanner", "the chapel bell", "the weather balloon", "the train depot turntable",
    "the bee hives on the roof", "the canal lock gates", "the ice rink resurfacer", "the printing press",
    "the river dredger", "the wind tunnel", "the recording studio console", "the glasshouse orchids",
    "the milking machine", "the planetarium projector", "the castle drawbridge", "the vineyard tractor",
    "the sawmill blade", "the aquarium filtration system", "the city's tram line", "the roller coaster",
    "the hot air balloon", "the dental clinic x-ray", "the pottery kiln", "the ski lift",
    "the ballroom chandelier", "the submarine periscope", "the cheese cellar", "the carousel",
    "the radio mast", "the steam locomotive", "the cathedral organ", "the fishing trawler",
    "the avalanche sensors", "the sheep shearing station", "the ancient olive press",
]
PLACES = [
    "Ghent", "Bruges", "Tallinn", "Porto", "Graz", "Lyon", "Utrecht", "Turku", "Bergen", "Cork", "Trieste",
    "Leiden", "Aarhus", "Bilbao", "Krakow", "Ljubljana", "Galway", "Innsbruck", "Valletta", "Riga",
]
# fmt: on
# Planted statements are kept only when their cosine to every other planted statement stays below
# this, so the only high-similarity pairs among them are the planted ones.
DISTINCT_BELOW = 0.7


def candidate_statements(count, rng):
    """`count` distinct (statement, negation) pairs: name, verb, object and place."""
    seen, pairs = set(), []
    while len(pairs) < count:
        name = NAMES[int(rng.integers(len(NAMES)))]
        verb, negated = VERBS[int(rng.integers(len(VERBS)))]
        thing = OBJECTS[int(rng.integers(len(OBJECTS)))]
        place = PLACES[int(rng.integers(len(PLACES)))]
        text = f"{name} {verb} {thing} in {place}."
        if text not in seen:
            seen.add(text)
            pairs.append((text, f"{name} {negated} {thing} in {place}."))
    return pairs


def cached_vectors(texts):
    """Real embeddings of `texts`, computed once and cached in bench/results/."""
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = RESULTS_DIR / f"detection-{len(texts)}-{digest}.npy"
    if path.exists():
        return np.load(path)
    from memories import embeddings

    log(f"Embedding {len(texts)} planted statements with the real model (cached afterwards)")
    vectors = np.asarray(embeddings.embed_many(texts), dtype=np.float32)
    RESULTS_DIR.mkdir(exist_ok=True)
    np.save(path, vectors)
    return vectors


def planted_statements(count, rng):
    """`count` (statement, negation) pairs whose statements are pairwise dissimilar."""
    candidates = candidate_statements(3 * count, rng)
    vectors = cached_vectors([text for text, _ in candidates])
    chosen = []
    for index, vector in enumerate(vectors):
        if not chosen or float(np.max(vectors[chosen] @ vector)) < DISTINCT_BELOW:
            chosen.append(index)
            if len(chosen) == count:
                break
    if len(chosen) < count:
        raise SystemExit(f"only {len(chosen)} dissimilar planted statements; lower --pairs")
    return [candidates[index] for index in chosen]


def setup_django(database_url):
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def plant(owner, pairs, rng, reindex=False):
    """Replace earlier planted rows; insert duplicate and contradiction pairs with real vectors."""
    from django.db import connection, transaction

    from graph import age
    from memories.models import Memory
    from memories.services import content_hash
    from quality.metrics import evaluate_memories

    statements = planted_statements(2 * pairs, rng)
    duplicates, contradictions = statements[:pairs], statements[pairs:]
    rows = []
    for index, (text, _) in enumerate(duplicates):
        copy = text if index % 2 == 0 else f"Note: {text}"
        rows += [(text, f"duplicate:{index}"), (copy, f"duplicate:{index}")]
    for index, (text, negation) in enumerate(contradictions):
        rows += [(text, f"contradiction:{index}"), (negation, f"contradiction:{index}")]
    vectors = cached_vectors([text for text, _ in rows])
    with transaction.atomic():
        planted = Memory.objects.filter(owner=owner, metadata__has_key="planted")
        stale = list(planted.values_list("pk", flat=True))
        age.remove_memory_vertices(stale)
        Memory.objects.filter(pk__in=stale).delete()
        memories = Memory.objects.bulk_create(
            Memory(
                owner=owner,
                content=text,
                content_hash=content_hash(text),
                embedding=vector,
                metadata={"planted": label},
            )
            for (text, label), vector in zip(rows, vectors, strict=True)
        )
        age.add_memory_vertices(memories)
        evaluate_memories([memory.pk for memory in memories], "store")
    # Rows of an earlier run were deleted: VACUUM removes them from the HNSW graph and repairs
    # the links of their neighbours, as autovacuum would in a long-running service.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE memories_memory")
        if reindex:
            log("Rebuilding the HNSW index over all rows")
            cursor.execute("SET maintenance_work_mem = '2GB'")
            cursor.execute("REINDEX INDEX memory_live_embedding_hnsw")
    return len(memories)


def planted_pairs():
    """{type: {canonical (memory1, memory2): cosine}} of the planted pairs."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT split_part(label, ':', 1), first, second, 1 - (a.embedding <=> b.embedding) "
            "FROM (SELECT metadata->>'planted' AS label, min(id::text)::uuid AS first, "
            "max(id::text)::uuid AS second FROM memories_memory WHERE metadata ? 'planted' "
            "GROUP BY metadata->>'planted') p "
            "JOIN memories_memory a ON a.id = p.first JOIN memories_memory b ON b.id = p.second"
        )
        pairs = {"duplicate": {}, "contradiction": {}}
        for kind, first, second, cosine in cursor.fetchall():
            pairs[kind][(first, second)] = cosine
    return pairs


def score(kind, planted, threshold):
    """Precision and recall of one finding type against the planted pairs of that type.

    `recall_within_threshold` counts only the planted pairs whose cosine reaches the rule's
    threshold: what the neighbour search itself finds or misses, apart from the model's view of
    the pair.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.memory1_id, i.memory2_id, a.metadata ? 'planted', b.metadata ? 'planted' "
            "FROM quality_inconsistency i JOIN memories_memory a ON a.id = i.memory1_id "
            "JOIN memories_memory b ON b.id = i.memory2_id WHERE i.type = %s AND i.status = 'open'",
            [kind],
        )
        rows = cursor.fetchall()
    found = {(first, second) for first, second, _, _ in rows}
    hits = len(found & planted.keys())
    eligible = {pair for pair, cosine in planted.items() if cosine >= threshold}
    sources = {"planted_with_planted": 0, "planted_with_background": 0, "background_with_background": 0}
    for first, second, first_planted, second_planted in rows:
        if (first, second) in planted:
            continue
        key = {2: "planted_with_planted", 1: "planted_with_background", 0: "background_with_background"}
        sources[key[first_planted + second_planted]] += 1
    return {
        "planted": len(planted),
        "found": len(found),
        "true_positives": hits,
        "precision": round(hits / len(found), 4) if found else None,
        "recall": round(hits / len(planted), 4) if planted else None,
        "planted_within_threshold": len(eligible),
        "recall_within_threshold": round(len(found & eligible) / len(eligible), 4) if eligible else None,
        "false_positives_by_origin": sources,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="memories in all (default 100000)")
    parser.add_argument("--pairs", type=int, default=500, help="planted pairs of each kind (default 500)")
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--fresh", action="store_true", help="drop and re-create the database first")
    parser.add_argument("--seed", type=int, default=13, help="random seed of the planted pairs")
    parser.add_argument(
        "--reindex",
        action="store_true",
        help="rebuild the HNSW index after planting (planted rows otherwise join it one by one)",
    )
    args = parser.parse_args()

    from bench.seed import seed

    ensure_database(args.database_url, fresh=args.fresh)
    setup_django(args.database_url)
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from memories.models import LIVE, Memory
    from quality.detection import detect_inconsistencies
    from quality.models import Inconsistency

    owner, _ = get_user_model().objects.get_or_create(username=USERNAME)
    background = args.count - 4 * args.pairs
    have = Memory.objects.filter(owner=owner).exclude(metadata__has_key="planted").count()
    seeded = None
    if have < background:
        log(f"Seeding {background - have} background memories with bench.seed")
        seeded = seed(args.database_url, count=background - have, username=USERNAME, progress=True)
    planted_rows = plant(owner, args.pairs, np.random.default_rng(args.seed), args.reindex)
    Inconsistency.objects.all().delete()
    total = Memory.objects.filter(LIVE).count()

    load_before = os.getloadavg()[0]
    log(f"Detecting over {total} memories")
    started = time.perf_counter()
    first = detect_inconsistencies(progress=lambda done, all_: log(f"  neighbour search {done}/{all_}"))
    first_seconds = time.perf_counter() - started
    started = time.perf_counter()
    second = detect_inconsistencies()
    second_seconds = time.perf_counter() - started

    planted = planted_pairs()
    report = {
        "benchmark": "detection",
        "database": args.database_url.rsplit("/", 1)[-1],
        "memories": total,
        "background_memories": total - planted_rows,
        "planted_pairs": {kind: len(pairs) for kind, pairs in planted.items()},
        "precomputed_vectors": True,
        "hnsw_rebuilt_after_planting": args.reindex,
        "vectors": "background: bench.seed (pool sentences' real vectors + noise); planted: real embeddings",
        "settings": {
            "neighbours": settings.DETECT_NEIGHBOURS,
            "hnsw_ef_search": settings.DETECT_HNSW_EF_SEARCH,
            "duplicate_min_cosine": settings.DETECT_DUPLICATE_MIN_COSINE,
            "contradiction_min_cosine": settings.DETECT_CONTRADICTION_MIN_COSINE,
            "outdated_days": settings.DETECT_OUTDATED_DAYS,
            "low_confidence": settings.DETECT_LOW_CONFIDENCE,
        },
        "seconds_first_run": round(first_seconds, 1),
        "seconds_rerun": round(second_seconds, 1),
        "target_seconds": 120,
        "first_run": first.as_dict(),
        "rerun": second.as_dict(),
        "duplicate": score("duplicate", planted["duplicate"], settings.DETECT_DUPLICATE_MIN_COSINE),
        "contradiction": score(
            "contradiction", planted["contradiction"], settings.DETECT_CONTRADICTION_MIN_COSINE
        ),
        "seeded": {key: seeded[key] for key in ("inserted", "seconds_total")} if seeded else None,
        "load_average_1min": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "machine": machine(),
    }
    emit(report)
    duplicate, contradiction = report["duplicate"], report["contradiction"]
    log(
        f"detection over {total} memories: {first_seconds:.1f} s (re-run {second_seconds:.1f} s); "
        f"duplicates P {duplicate['precision']} R {duplicate['recall']}, "
        f"contradictions P {contradiction['precision']} R {contradiction['recall']}"
    )


if __name__ == "__main__":
    main()
