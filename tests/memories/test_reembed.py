import numpy as np
import pytest
from django.core.management import call_command

from memories import embeddings
from memories.models import Memory
from quality import supersession
from quality.facts import reading
from quality.models import MemoryReading
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scrambled(alice):
    memory = MemoryFactory(
        owner=alice, content="The boiler was serviced in March", embedding=[1.0] + [0.0] * 383
    )
    return str(memory.pk)


def expected(memory_id):
    return embeddings.embed(Memory.objects.get(pk=memory_id).content)


def test_reembed_command_recomputes_vectors_and_prints_a_summary(scrambled, capsys):
    call_command("reembed", verbosity=0)
    assert np.allclose(Memory.objects.get(pk=scrambled).embedding, expected(scrambled), atol=1e-5)
    assert capsys.readouterr().out.startswith("Re-embedded 1 memories with all-MiniLM-L6-v2")


def test_reembed_endpoint_for_staff_recomputes_given_ids(staff_client, scrambled):
    response = staff_client.post("/admin/reembed", {"ids": [scrambled]}, format="json")
    assert response.status_code == 200
    assert response.json()["reembedded"] == 1
    assert np.allclose(Memory.objects.get(pk=scrambled).embedding, expected(scrambled), atol=1e-5)


@pytest.mark.django_db(transaction=True)
def test_reembed_of_all_memories_answers_202_and_a_worker_does_it(staff_client, scrambled, run_jobs):
    response = staff_client.post("/admin/reembed", {"all": True}, format="json")
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "accepted"
    assert body["poll"] == f"/api/jobs/{body['job_id']}"
    assert staff_client.get(body["poll"]).json()["job"]["status"] == "todo"

    run_jobs()

    job = staff_client.get(body["poll"]).json()["job"]
    assert job["status"] == "succeeded"
    assert job["result"]["reembedded"] == 1
    assert np.allclose(Memory.objects.get(pk=scrambled).embedding, expected(scrambled), atol=1e-5)


def test_reembed_endpoint_is_403_for_non_staff(alice_client, scrambled):
    response = alice_client.post("/admin/reembed", {"all": True}, format="json")
    assert response.status_code == 403
    assert response.json()["status"] == "error"
    assert Memory.objects.get(pk=scrambled).embedding[0] == 1.0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "Provide 'ids' (a list of memory UUIDs) or 'all': true"),
        ({"ids": ["nope"]}, "memory_id must be a valid UUID"),
        ({"ids": []}, "'ids' must be a list of 1 to 10000 memory UUIDs"),
        ({"all": True, "batch_size": 0}, "'batch_size' must be an integer between 1 and 1024"),
    ],
)
def test_reembed_endpoint_validation(staff_client, body, message):
    response = staff_client.post("/admin/reembed", body, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == message


@pytest.mark.parametrize("flag", [{}, [], 0, 1, -0.0, "no", "false", "yes", "true"])
def test_reembed_all_takes_only_json_true(staff_client, scrambled, flag):
    response = staff_client.post("/admin/reembed", {"all": flag}, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == "'all' must be a boolean"
    assert Memory.objects.get(pk=scrambled).embedding[0] == 1.0


def test_embeddings_are_normalized_384_floats():
    vector = np.array(embeddings.embed("hello"))
    assert vector.shape == (384,)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_provider_is_built_once_per_process():
    assert embeddings.get_provider() is embeddings.get_provider()


def test_batch_encoding_matches_single_encoding():
    single = embeddings.embed("the cat sat on the mat")
    batched = embeddings.embed_many(["something else", "the cat sat on the mat"])[1]
    assert np.allclose(single, batched, atol=1e-5)


def test_reembed_recomputes_the_frames_of_the_memories_readings(scrambled):
    supersession.read_memories("m.id = ANY(%(ids)s::uuid[])", {"ids": [scrambled]})
    MemoryReading.objects.filter(memory_id=scrambled).update(frame=[1.0] + [0.0] * 383)

    call_command("reembed", verbosity=0)

    content = Memory.objects.get(pk=scrambled).content
    frame = MemoryReading.objects.get(memory_id=scrambled).frame
    assert np.allclose(frame, embeddings.embed(reading.frame(content)), atol=1e-5)
