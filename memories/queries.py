"""Reads of memories, always through the owner: another user's memory is as absent as a missing one."""

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from memories.models import LIVE, Memory
from memsite.errors import NotFound
from memsite.validation import parse_uuid

NOT_FOUND = "Memory not found"
INVALID_ID = "memory_id must be a valid UUID"


def memories_of(user):
    """Every memory of `user` (archived ones included), without the vector column."""
    return Memory.objects.filter(owner=user).defer("embedding", "search_vector")


def get_memory_for_user(user, memory_id):
    """The user's memory with this id: 400 for a malformed id, 404 for anyone else's or none."""
    memory = memories_of(user).filter(pk=parse_uuid(memory_id, INVALID_ID)).first()
    if memory is None:
        raise NotFound(NOT_FOUND)
    return memory


def memories_by_tag(user, tags):
    """Live memories carrying any of `tags` (stored lower-cased), most important first."""
    return (
        memories_of(user)
        .filter(LIVE, tags__overlap=tags)
        .order_by("-importance", "-created_at", "-sequence")
    )


ORDERINGS = {
    "time_desc": ("-created_at", "-sequence"),
    "time_asc": ("created_at", "sequence"),
    "importance": ("-importance", "-created_at", "-sequence"),
}


def list_memories(user, filters):
    """The user's memories filtered by tags (any), types, archived (`live`, `archived` or `all`)
    and a created_at range, in one of ORDERINGS."""
    memories = memories_of(user)
    if filters["archived"] == "live":
        memories = memories.filter(LIVE)
    elif filters["archived"] == "archived":
        memories = memories.exclude(LIVE)
    if filters["tags"]:
        memories = memories.filter(tags__overlap=filters["tags"])
    if filters["types"]:
        memories = memories.filter(memory_type__in=filters["types"])
    if filters["start"]:
        memories = memories.filter(created_at__gte=filters["start"])
    if filters["end"]:
        memories = memories.filter(created_at__lte=filters["end"])
    return memories.order_by(*ORDERINGS[filters["order"]])


def memory_owners():
    """The users who own at least one memory, by name (one index probe per user)."""
    return (
        get_user_model()
        .objects.filter(Exists(Memory.objects.filter(owner=OuterRef("pk"))))
        .order_by("username")
    )
