"""The small curation data set the dashboard tests share, built with the real services."""

from graph.models import Origin
from graph.services import Link, associate_memories
from memories.services import store_memories
from quality.consolidation import run_consolidation
from quality.detection import detect_inconsistencies

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


def item(content, tags, memory_type):
    return {
        "content": content,
        "tags": tags,
        "memory_type": memory_type,
        "importance": 0.6,
        "metadata": {},
        "source_type": "user_input",
        "source_id": "",
        "is_explicit": True,
        "created_at": None,
    }


def build_curation_data(owner):
    """Memories stored through the real service, a hub linked to six others, the findings of a
    real detection run (the online / not online pair contradicts), and a real consolidation run
    that boosts the hub."""
    memories = [memory for memory, _ in store_memories(owner, [item(*row) for row in CONTENTS])]
    hub = memories[0]
    links = [Link(hub.pk, other.pk, "RELATES_TO", 0.8) for other in memories[3:]]
    associate_memories(owner.pk, links, origin=Origin.USER)
    detect_inconsistencies(owner=owner)
    run = run_consolidation(dry_run=False)
    hub.refresh_from_db()
    return {"run": run, "memories": memories, "hub": hub, "online": memories[1], "offline": memories[2]}
