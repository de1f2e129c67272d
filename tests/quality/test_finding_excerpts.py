"""A finding's description quotes its memories cut at a whole word, never mid-word."""

import pytest

from quality.models import Inconsistency
from quality.services import detect_for_owner
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

LONG = (
    "The nightly export job writes the invoices of every customer to the archive bucket "
    "and then mails the finance team a summary"
)


def test_a_long_memory_is_quoted_up_to_a_whole_word_with_an_ellipsis(alice):
    MemoryFactory(owner=alice, content=LONG)
    MemoryFactory(owner=alice, content=LONG, allow_duplicate=True)
    detect_for_owner(alice)
    description = Inconsistency.objects.get(type="duplicate").description
    quoted = "The nightly export job writes the invoices of every customer to the archive…"
    assert description == f'Same content: "{quoted}"'
