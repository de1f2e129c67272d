"""Reads of memories, always through the owner: another user's memory is as absent as a missing one."""

import uuid

from memories.models import Memory
from memsite.api.exceptions import ApiError

NOT_FOUND = "Memory not found"
INVALID_ID = "memory_id must be a valid UUID"


def memories_of(user):
    """Every memory of `user` (archived ones included), without the vector column."""
    return Memory.objects.filter(owner=user).defer("embedding", "search_vector")


def get_memory_for_user(user, memory_id):
    """The user's memory with this id: 400 for a malformed id, 404 for anyone else's or none."""
    try:
        pk = uuid.UUID(str(memory_id))
    except ValueError:
        raise ApiError(INVALID_ID, 400) from None
    memory = memories_of(user).filter(pk=pk).first()
    if memory is None:
        raise ApiError(NOT_FOUND, 404)
    return memory


def memories_by_tag(user, tags, limit, offset):
    """Live memories carrying any of `tags` (stored lower-cased), most important first."""
    return list(
        memories_of(user)
        .filter(archived_at__isnull=True, tags__overlap=tags)
        .order_by("-importance", "-created_at", "-sequence")[offset : offset + limit]
    )
