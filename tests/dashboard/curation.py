"""The small curation data set the dashboard tests share, built with the real services."""

import factory

from quality.consolidation import run_consolidation
from quality.detection import detect_inconsistencies
from tests.factories import AssociationFactory, MemoryFactory

HUB = "Our team ships the memsite service with Django and PostgreSQL"
CONTENTS = [
    (HUB, ["project"], "Context"),
    ("The user is online", ["status"], "Context"),
    ("The user is not online", ["status"], "Context"),
    ("Deploys go out on Tuesdays after the weekly review", ["deploy", "process"], "Decision"),
    ("Prefers dark mode in every editor and terminal", ["ui"], "Preference"),
    ("Code reviews need one approval from another team member", ["process"], "Pattern"),
    ("Writes commit messages in the imperative mood", ["style"], "Style"),
    ("Runs the full test suite before every push", ["habit"], "Habit"),
    ("Caching the embedding model per process made recall four times faster", ["performance"], "Insight"),
]


def build_curation_data(owner):
    """Memories stored through the real service, a hub linked to six others, the findings of a
    real detection run (the online / not online pair contradicts), and a real consolidation run
    that boosts the hub."""
    contents, tags, types = zip(*CONTENTS, strict=True)
    memories = MemoryFactory.create_batch(
        len(CONTENTS),
        owner=owner,
        content=factory.Iterator(contents),
        tags=factory.Iterator(tags),
        memory_type=factory.Iterator(types),
        importance=0.6,
        is_explicit=True,
    )
    hub = memories[0]
    others = memories[3:]
    AssociationFactory.create_batch(len(others), source=hub, target=factory.Iterator(others), strength=0.8)
    detect_inconsistencies(owner=owner)
    run = run_consolidation(dry_run=False)
    hub.refresh_from_db()
    return {"run": run, "memories": memories, "hub": hub, "online": memories[1], "offline": memories[2]}
