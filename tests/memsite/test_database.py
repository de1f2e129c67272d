import pytest
from django.db import connection, transaction

from graph.age import cypher

pytestmark = pytest.mark.django_db


def test_pgvector_and_age_extensions_are_installed():
    with connection.cursor() as cursor:
        cursor.execute("SELECT extname FROM pg_extension")
        names = {row[0] for row in cursor.fetchall()}
    assert {"vector", "age"} <= names


def test_graph_memsite_exists():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM ag_catalog.ag_graph WHERE name = 'memsite'")
        assert cursor.fetchone()[0] == 1


def test_cypher_round_trip_creates_and_matches_a_vertex():
    cypher("CREATE (m:Probe {id: $id}) RETURN m.id", {"id": "round-trip-1"})
    rows = cypher("MATCH (m:Probe {id: $id}) RETURN m", {"id": "round-trip-1"})
    assert len(rows) == 1
    vertex = rows[0][0]
    assert vertex.label == "Probe"
    assert vertex.properties == {"id": "round-trip-1"}


def test_cypher_writes_roll_back_with_the_django_transaction():
    def create_then_fail():
        with transaction.atomic():
            cypher("CREATE (m:Probe {id: $id})", {"id": "rolled-back"})
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError):
        create_then_fail()
    assert cypher("MATCH (m:Probe {id: $id}) RETURN m", {"id": "rolled-back"}) == []
