"""Imports: a file's lines are taken in (intake), then run in batches, one transaction each.

A batch stores its memories with the store service (embedded together, evaluated, enriched on the
queue like any store), recreates the associations between memories of the file (INVALIDATED_BY ones
let the database derive validity again), and adds the findings, boosts and assessments; it records
what landed by the file's ids (ImportedRecord) and moves the run's `next_line` in the same
transaction. So a run that stops goes on where its last batch ended, and a file imported again
finds every record already there and changes nothing.
"""

import json
import tempfile

from django.db import connection, transaction
from django.utils import timezone

from graph.models import Association
from graph.services import Link, associate_memories
from memories.services import store_memories
from memsite import jobs
from memsite.db import retry_on_conflict
from memsite.errors import DomainError, Invalid
from portability import records
from portability.formats import FORMATS
from portability.models import ImportedRecord, ImportLine, ImportRun

BATCH = 256
MAX_REPORTED_FAILURES = 100
# A line that is not UTF-8, or holds a NUL character (which PostgreSQL cannot store), is kept as
# this one character: no JSON reads it, so the line fails as not valid JSON, by its number.
UNREADABLE = "\x01"
MISSING_MEMORY = "{kind} names memory '{id}', which this import has not stored"
DUPLICATE_ID = "Duplicate id '{id}': line {line} has it too"
OUTCOMES = ("imported", "skipped", "failed")


def _decoded(raw):
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        return UNREADABLE
    return UNREADABLE if "\x00" in text else text.rstrip("\r\n")


def _numbered(raw_lines):
    """(line number, text) of the non-blank lines."""
    for number, raw in enumerate(raw_lines, start=1):
        text = _decoded(raw)
        if text.strip():
            yield number, text


def take_in(owner, raw_lines, source_format=records.FORMAT, dry_run=False):
    """A new queued ImportRun holding the lines (bytes or text, memsite's format) after the header;
    a `dry_run` one reports what it would do and writes nothing.

    A first line that is not memsite's header refuses the whole file (Invalid), with nothing kept.
    """
    numbered = _numbered(raw_lines)
    first = next(numbered, None)
    if first is None:
        raise Invalid("The file is empty")
    try:
        records.read_header(records.parse_line(first[1]))
    except Invalid as error:
        raise Invalid(f"Line {first[0]}: {error.message}") from None
    with transaction.atomic():
        run = ImportRun.objects.create(owner=owner, format=source_format, dry_run=dry_run)
        table = ImportLine._meta.db_table
        total = first[0]
        with (
            connection.cursor() as cursor,
            cursor.cursor.copy(f"COPY {table} (run_id, number, text) FROM STDIN") as copy,
        ):
            for number, text in numbered:
                copy.write_row([run.pk, number, text])
                total = number
        run.total_lines = total
        run.next_line = first[0] + 1
        run.save(update_fields=["total_lines", "next_line"])
    return run


def queue_import(run):
    """Queue the job that runs `run`; answers the job id."""
    from portability.tasks import import_file as task

    return jobs.defer(task.configure(lock=f"import-{run.pk}"), run_id=run.pk, owner_id=run.owner_id)


def import_upload(owner, chunks, source_format=records.FORMAT, dry_run=False):
    """Take in an uploaded file (its chunks of bytes, in `source_format`) and queue its import, as
    POST /import and the dashboard's import page do; answers (run, job id). Invalid: a bad file."""
    with tempfile.NamedTemporaryFile(prefix="memsite-import-", suffix=".upload") as saved:
        for chunk in chunks:
            saved.write(chunk)
        saved.flush()
        with transaction.atomic():
            run = take_in(owner, FORMATS[source_format](saved.name), source_format, dry_run)
            return run, queue_import(run)


def run_import(run_id, progress=None):
    """Run (or resume) an import to its end; answers its summary. `progress(n)` after each batch.

    A dry run imports in one transaction that it rolls back, then keeps only the counts.
    """
    ImportRun.objects.filter(pk=run_id).update(status=ImportRun.Status.RUNNING)
    if not ImportRun.objects.filter(pk=run_id, dry_run=True).exists():
        return _run(run_id, progress)
    with transaction.atomic():
        summary = _run(run_id, progress)
        transaction.set_rollback(True)
    ImportRun.objects.filter(pk=run_id).update(
        status=ImportRun.Status.SUCCEEDED,
        finished_at=timezone.now(),
        next_line=summary["done_lines"] + 1,
        **{name: summary[name] for name in ("imported", "skipped", "failed", "counts", "failures")},
    )
    ImportLine.objects.filter(run_id=run_id).delete()
    return summary


def _run(run_id, progress):
    while True:
        done = _import_batch(run_id)
        if done is None:
            break
        if progress:
            progress(done)
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().get(pk=run_id)
        run.status, run.finished_at = ImportRun.Status.SUCCEEDED, timezone.now()
        run.save(update_fields=["status", "finished_at"])
        run.lines.all().delete()
    return run.summary()


@retry_on_conflict
def _import_batch(run_id):
    """Import the next batch of lines; answers how many lines it read (None: none were left)."""
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().get(pk=run_id)
        lines = list(
            run.lines.filter(number__gte=run.next_line)
            .order_by("number")
            .values_list("number", "text")[:BATCH]
        )
        if not lines:
            return None
        batch = _Batch(run)
        batch.read(lines)
        batch.store_memories()
        batch.associate()
        batch.add_findings()
        batch.add_history("boost", BOOST_SQL)
        batch.add_history("assessment", ASSESSMENT_SQL)
        run.next_line = lines[-1][0] + 1
        run.imported += batch.total("imported")
        run.skipped += batch.total("skipped")
        run.failed += len(batch.failures)
        run.counts = batch.added_to(run.counts)
        room = MAX_REPORTED_FAILURES - len(run.failures)
        run.failures = run.failures + sorted(batch.failures, key=lambda entry: entry["line"])[: max(room, 0)]
        run.save(update_fields=["next_line", "imported", "skipped", "failed", "counts", "failures"])
    return len(lines)


LOCK_MEMORIES_SQL = (
    "SELECT id FROM memories_memory WHERE id = ANY(%s::uuid[]) AND owner_id = %s FOR KEY SHARE"
)

FINDING_SQL = """
INSERT INTO quality_inconsistency
    (type, memory1_id, memory2_id, severity, description, details, status, resolution, detected_at,
     resolved_at)
SELECT r.type, r.memory1_id, r.memory2_id, r.severity, r.description, r.details, r.status, r.resolution,
       coalesce(r.detected_at, now()), r.resolved_at
FROM jsonb_populate_recordset(NULL::quality_inconsistency, %s::jsonb) r
ON CONFLICT DO NOTHING
RETURNING 1
"""
BOOST_SQL = """
INSERT INTO quality_qualityboost
    (memory_id, kind, connection_count, quality_before, quality_after, factor, created_at)
SELECT r.memory_id, r.kind, r.connection_count, r.quality_before, r.quality_after, r.factor,
       coalesce(r.created_at, now())
FROM jsonb_populate_recordset(NULL::quality_qualityboost, %s::jsonb) r
"""
ASSESSMENT_SQL = """
INSERT INTO quality_qualityassessment
    (memory_id, accuracy, completeness, consistency, timeliness, relevance, overall, weights, query,
     trigger, evaluated_at)
SELECT r.memory_id, r.accuracy, r.completeness, r.consistency, r.timeliness, r.relevance, r.overall,
       r.weights, r.query, r.trigger, coalesce(r.evaluated_at, now())
FROM jsonb_populate_recordset(NULL::quality_qualityassessment, %s::jsonb) r
"""


def _json(rows):
    return json.dumps(rows, default=str)


class _Batch:
    """The records of one batch of lines, by kind, and what became of them."""

    def __init__(self, run):
        self.run, self.owner = run, run.owner
        self.by_kind = {kind: [] for kind in records.KINDS}
        self.failures = []
        self.counts = {kind: dict.fromkeys(OUTCOMES, 0) for kind in records.KINDS}

    def count(self, kind, outcome, n=1):
        self.counts[kind][outcome] += n

    def total(self, outcome):
        return sum(counts[outcome] for counts in self.counts.values())

    def added_to(self, earlier):
        """Run counts `earlier` (per kind) plus this batch's."""
        return {
            kind: {
                outcome: earlier.get(kind, {}).get(outcome, 0) + self.counts[kind][outcome]
                for outcome in OUTCOMES
            }
            for kind in records.KINDS
        }

    def fail(self, line, reason, kind=None):
        """A failed line; `kind` when the line said which kind of record it is."""
        self.failures.append({"line": line, "reason": reason, **({"kind": kind} if kind else {})})
        if kind:
            self.count(kind, "failed")

    def read(self, lines):
        for number, text in lines:
            kind = None
            try:
                if text == UNREADABLE:
                    raise Invalid("Line is not UTF-8 text, or holds a NUL character")
                record = records.parse_line(text)
                kind = record["kind"] if record["kind"] in records.KINDS else None
                record = records.read_record(record)
            except DomainError as error:
                self.fail(number, error.message, kind)
                continue
            self.by_kind[kind].append((number, record))

    def _known(self, kind, ids):
        return {
            record.source_id: record
            for record in ImportedRecord.objects.filter(owner=self.owner, kind=kind, source_id__in=ids)
        }

    def _new(self, kind, entries):
        """The entries whose id no earlier import of the owner recorded; a repeated id fails."""
        known = self._known(kind, [record["id"] for _, record in entries])
        fresh, seen = [], {}
        for number, record in entries:
            earlier = known.get(record["id"])
            if record["id"] in seen or (earlier and earlier.run_id == self.run.pk):
                line = seen.get(record["id"]) or earlier.line
                self.fail(number, DUPLICATE_ID.format(id=record["id"], line=line), kind)
            elif earlier:
                self.count(kind, "skipped")
            else:
                seen[record["id"]] = number
                fresh.append((number, record))
        return fresh

    def _remember(self, kind, entries, memories=None):
        ImportedRecord.objects.bulk_create(
            ImportedRecord(
                owner=self.owner,
                kind=kind,
                source_id=record["id"],
                memory=None if memories is None else memories[position],
                run=self.run,
                line=number,
            )
            for position, (number, record) in enumerate(entries)
        )

    def store_memories(self):
        fresh = self._new("memory", self.by_kind["memory"])
        if not fresh:
            return
        stored = store_memories(self.owner, [record for _, record in fresh])
        changes = []
        for (_, record), (memory, duplicate) in zip(fresh, stored, strict=True):
            if duplicate:
                self.count("memory", "skipped")
                continue
            self.count("memory", "imported")
            changes.append(
                {
                    "id": str(memory.pk),
                    "updated_at": (record["updated_at"] or memory.created_at).isoformat(),
                    "archived_at": record["archived_at"] and record["archived_at"].isoformat(),
                    "archive_reason": record["archive_reason"],
                    "protected": record["protected"],
                    "corroborating_sources": record["corroborating_sources"],
                }
            )
        _apply_import_fields(changes)
        self._remember("memory", fresh, [memory for memory, _ in stored])

    def _memories(self, entries, names):
        """{file id: memory id} for the file ids these entries name that the owner's imports stored
        (their memories locked against deletion until the batch commits)."""
        ids = {record[name] for _, record in entries for name in names if record.get(name) is not None}
        found = dict(
            ImportedRecord.objects.filter(
                owner=self.owner, kind="memory", source_id__in=ids, memory__isnull=False
            ).values_list("source_id", "memory_id")
        )
        with connection.cursor() as cursor:
            cursor.execute(LOCK_MEMORIES_SQL, [list(found.values()), self.owner.pk])
            alive = {row[0] for row in cursor.fetchall()}
        return {source_id: memory_id for source_id, memory_id in found.items() if memory_id in alive}

    def _resolved(self, kind, names):
        """The entries of `kind` with their memory ids in place; those naming a missing one fail."""
        entries = self.by_kind[kind]
        memories = self._memories(entries, names)
        resolved = []
        for number, record in entries:
            missing = [
                record[name]
                for name in names
                if record.get(name) is not None and record[name] not in memories
            ]
            if missing:
                self.fail(number, MISSING_MEMORY.format(kind=kind.capitalize(), id=missing[0]), kind)
                continue
            ids = {name: memories.get(record[name]) for name in names}
            resolved.append((number, record, ids))
        return resolved

    def associate(self):
        resolved = self._resolved("association", ["source", "target"])
        if not resolved:
            return
        existing = set(
            Association.objects.filter(
                source_id__in=[ids["source"] for _, _, ids in resolved],
                target_id__in=[ids["target"] for _, _, ids in resolved],
            ).values_list("source_id", "target_id", "relation_type")
        )
        by_origin = {}
        for number, record, ids in resolved:
            link = Link(
                ids["source"], ids["target"], record["type"], record["strength"], record["properties"]
            )
            if (ids["source"], ids["target"], record["type"]) in existing:
                self.count("association", "skipped")
            else:
                by_origin.setdefault(record["origin"], []).append((number, link))
        for origin, entries in by_origin.items():
            landed = associate_memories(self.owner.pk, [link for _, link in entries], origin)
            for number, link in entries:
                if link.key in landed:
                    self.count("association", "imported")
                else:
                    self.fail(number, "A memory of this association was deleted meanwhile", "association")

    def add_findings(self):
        resolved = self._resolved("finding", ["memory1", "memory2"])
        rows = [
            {
                **record,
                "memory1_id": str(ids["memory1"]),
                "memory2_id": ids["memory2"] and str(ids["memory2"]),
            }
            for _, record, ids in resolved
        ]
        if not rows:
            return
        with connection.cursor() as cursor:
            cursor.execute(FINDING_SQL, [_json(rows)])
            added = cursor.rowcount
        self.count("finding", "imported", added)
        self.count("finding", "skipped", len(rows) - added)

    def add_history(self, kind, statement):
        """Boosts or assessments: rows of the memory's history, kept once per file id."""
        self.by_kind[kind] = self._new(kind, self.by_kind[kind])
        resolved = self._resolved(kind, ["memory"])
        if not resolved:
            return
        rows = [{**record, "memory_id": str(ids["memory"])} for _, record, ids in resolved]
        with connection.cursor() as cursor:
            cursor.execute(statement, [_json(rows)])
        self.count(kind, "imported", len(rows))
        self._remember(kind, [(number, record) for number, record, _ in resolved])


APPLY_SQL = """
UPDATE memories_memory m
SET updated_at = v.updated_at, archived_at = v.archived_at, archive_reason = v.archive_reason,
    protected = v.protected, corroborating_sources = v.corroborating_sources
FROM jsonb_to_recordset(%s::jsonb) AS v(
    id uuid, updated_at timestamptz, archived_at timestamptz, archive_reason text, protected boolean,
    corroborating_sources varchar[]
)
WHERE m.id = v.id
"""


def _apply_import_fields(changes):
    """What a store does not set but an import keeps: update time, archive state, protection."""
    if changes:
        with connection.cursor() as cursor:
            cursor.execute(APPLY_SQL, [json.dumps(changes)])
