"""Quality migration 0009 on an existing database: memories whose replacement already waits for
review get its confidence, the others 0."""

import pytest

from memories.models import Memory
from quality.models import Inconsistency
from tests.conftest import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("quality", "0008_pair_relation"), ("memories", "0022_owner_id_index")]
AFTER = ("quality", "0009_replacement_proposed")


def test_the_migration_gives_existing_memories_their_waiting_replacements(alice_client, latest_after):
    ids = [
        alice_client.post("/memory", {"content": content}, format="json").json()["memory_id"]
        for content in ("Ines lives in Ghent.", "Ines lives in Antwerp now.", "Ines plays the cello.")
    ]
    older, newer, other = (Memory.objects.get(pk=pk) for pk in ids)
    Inconsistency.objects.create(
        type="superseded", memory1=older, memory2=newer, severity=0.77, description="replaced",
        details={"confidence": 0.77, "signals": ["time_order"]},
    )  # fmt: skip
    migrate(*BEFORE)
    migrate(AFTER)
    proposed = dict(Memory.objects.values_list("pk", "replacement_proposed"))
    assert proposed == {older.pk: pytest.approx(0.77), newer.pk: 0, other.pk: 0}
