"""Reads of memories, always through the owner: another user's memory is as absent as a missing one."""

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
