"""The recall explorer: the API's recall, read-only, explained."""

import pytest
from django.urls import reverse

from memories.models import Memory
from memories.services import archive_memory
from tests.conftest import client_for
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

URL = reverse("dashboard:recall")


def explore(curator, owner, **params):
    return curator.get(URL, {"owner": owner.pk, **params})


def test_the_explorer_is_for_staff_only(client, alice):
    assert client.get(URL).status_code == 302
    client.force_login(alice)
    assert client.get(URL).status_code == 403


def test_the_explorer_returns_what_the_api_returns_in_the_same_order(curator, curation_data, alice):
    params = {"query": "how does the team deploy and review code", "limit": "6", "expand_relations": "true"}
    page = explore(curator, alice, **params)
    shown = [str(row["result"].memory.pk) for row in page.context["found"]["rows"]]
    api = client_for(alice).get("/recall", params).json()
    assert shown == [result["id"] for result in api["results"]]
    assert len(shown) > 6


def test_the_explorer_leaves_access_counters_untouched(curator, curation_data, alice):
    before = dict(Memory.objects.values_list("pk", "access_count"))
    response = explore(curator, alice, query="dark mode editor", rank_by_quality="true")
    assert response.context["found"]["rows"]
    assert dict(Memory.objects.values_list("pk", "access_count")) == before
    assert not Memory.objects.filter(last_accessed_at__isnull=False).exists()


def test_each_result_shows_its_weighted_components_and_match_type(curator, curation_data, alice):
    response = explore(curator, alice, query="Tuesdays deploys")
    row = response.context["found"]["rows"][0]
    assert row["result"].memory == curation_data["memories"][3]
    assert row["total"] == pytest.approx(row["result"].final_score)
    assert {segment["name"] for segment in row["segments"]} >= {"vector", "keyword"}
    assert b"component-vector" in response.content
    assert b"match-keyword" in response.content or b"match-vector" in response.content


def test_expanded_results_show_the_relations_followed(curator, curation_data, alice):
    response = explore(
        curator, alice, query="memsite service Django PostgreSQL", limit="1", expand_relations="true"
    )
    rows = response.context["found"]["rows"]
    expanded = [row for row in rows if row["result"].match_type == "relation"]
    assert expanded
    assert all(row["result"].relations for row in expanded)
    assert b"RELATES_TO" in response.content


def test_invalid_recall_options_show_the_api_message_and_no_results(curator, curation_data, alice):
    response = explore(curator, alice, query="x", limit="0")
    assert response.status_code == 200
    assert "'limit' must be" in response.context["error"]
    assert "found" not in response.context


def test_why_not_gives_the_rank_and_components_of_a_memory(curator, curation_data, alice):
    wanted = curation_data["memories"][7]
    response = explore(curator, alice, query="Tuesdays deploys", limit="1", why_not=str(wanted.pk))
    answer = response.context["why_not"]
    assert answer["row"]["result"].memory == wanted
    assert answer["row"]["rank"] > 1
    assert answer["returned"] is False


def test_why_not_names_the_filter_that_leaves_a_memory_out(curator, curation_data, alice):
    offline = curation_data["offline"]
    archive_memory(offline)
    response = explore(curator, alice, query="online", type="Decision", why_not=str(offline.pk))
    reasons = response.context["why_not"]["reasons"]
    assert any("archived" in reason for reason in reasons)
    assert any("type" in reason for reason in reasons)
    assert response.context["why_not"]["similarity"] > 0


def test_why_not_refuses_a_memory_of_another_owner(curator, curation_data, alice, bob):
    MemoryFactory(owner=bob, content="Bob keeps his notes in plain text")
    response = explore(curator, bob, query="online", why_not=str(curation_data["online"].pk))
    assert response.context["why_not"]["reasons"] == ["No memory of bob has this id."]


def test_the_explorer_shows_what_replaced_a_memory_and_what_was_true_then(curator, alice):
    client = client_for(alice)
    older = client.post(
        "/memory", {"content": "Ines lives in Ghent", "timestamp": "2026-03-01T09:00:00Z"}, format="json"
    ).json()["memory_id"]
    newer = client.post(
        "/memory",
        {"content": "Ines lives in Antwerp now", "timestamp": "2026-05-01T09:00:00Z", "supersedes": [older]},
        format="json",
    ).json()["memory_id"]

    rows = explore(curator, alice, query="Where does Ines live?").context["found"]["rows"]
    assert [str(row["result"].memory.pk) for row in rows] == [newer, older]
    assert rows[1]["penalties"][0]["name"] == "superseded"
    assert rows[1]["total"] == pytest.approx(rows[1]["result"].final_score)
    then = explore(curator, alice, query="Where does Ines live?", valid_at="2026-04-01T00:00")
    assert [str(row["result"].memory.pk) for row in then.context["found"]["rows"]] == [older]
    hidden = explore(curator, alice, query="Ines", include_superseded="false", why_not=older)
    assert [str(row["result"].memory.pk) for row in hidden.context["found"]["rows"]] == [newer]
    assert "replaced it" in " ".join(hidden.context["why_not"]["reasons"])
