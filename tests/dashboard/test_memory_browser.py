"""The dashboard's memory browser: every memory, filtered and paged."""

import pytest
from django.urls import reverse

from memories.models import Memory
from memories.services import archive_memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

URL = reverse("dashboard:memories")


def listed(response):
    return {memory.pk for memory in response.context["page"]}


def test_the_browser_is_for_staff_only(client, alice):
    assert client.get(URL).status_code == 302
    client.force_login(alice)
    assert client.get(URL).status_code == 403


def test_the_browser_lists_every_memory_within_a_fixed_number_of_queries(
    curator, curation_data, django_assert_max_num_queries
):
    archive_memory(curation_data["offline"])
    with django_assert_max_num_queries(8):
        response = curator.get(URL)
    assert response.status_code == 200
    assert listed(response) == {memory.pk for memory in curation_data["memories"]}
    assert b"badge tier-" in response.content


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"memory_type": "Decision"}, [3]),
        ({"tag": "PROCESS"}, [3, 5]),
        ({"archived": "yes"}, [2]),
        ({"boosted": "yes"}, [0]),
        ({"q": "Tuesdays"}, [3]),
        ({"q": "habit"}, [7]),
        ({"memory_type": "Context", "archived": "no"}, [0, 1]),
    ],
)
def test_the_browser_filters_by_type_tag_archived_boosted_and_words(curator, curation_data, params, expected):
    archive_memory(curation_data["offline"])
    response = curator.get(URL, params)
    assert listed(response) == {curation_data["memories"][index].pk for index in expected}


def test_the_browser_filters_by_tier_and_owner(curator, curation_data, bob):
    low = set(Memory.objects.filter(quality_score__lt=0.5).values_list("pk", flat=True))
    assert listed(curator.get(URL, {"tier": "low"})) == low
    owner = curation_data["hub"].owner
    assert len(listed(curator.get(URL, {"owner": owner.pk}))) == len(curation_data["memories"])


def test_the_browser_pages_keep_the_filters(curator, curation_data, monkeypatch):
    monkeypatch.setattr("dashboard.views.BROWSER_PAGE_SIZE", 2)
    first = curator.get(URL, {"memory_type": "Context"})
    assert first.context["page"].paginator.count == 3
    assert b"?memory_type=Context&amp;page=2" in first.content
    second = curator.get(URL, {"memory_type": "Context", "page": 2})
    assert len(listed(second)) == 1


def test_invalid_browser_filters_show_every_memory(curator, curation_data):
    response = curator.get(URL, {"tier": "nonsense", "owner": "x"})
    assert response.status_code == 200
    assert len(listed(response)) == len(curation_data["memories"])


def test_the_quality_column_sorts_both_ways_and_keeps_the_filters(curator, alice):
    for score in (0.3, 0.9, 0.6):
        MemoryFactory(owner=alice, content=f"Memory scored {score}", quality=score, tags=["sorted"])
    url = reverse("dashboard:memories")
    best = curator.get(url, {"tag": "sorted", "sort": "-quality"})
    assert [m.quality_score for m in best.context["page"]] == [0.9, 0.6, 0.3]
    html = best.content.decode()
    assert 'href="?tag=sorted&amp;sort=quality"' in html
    worst = curator.get(url, {"tag": "sorted", "sort": "quality"})
    assert [m.quality_score for m in worst.context["page"]] == [0.3, 0.6, 0.9]


def test_an_unknown_sort_is_ignored(curator, alice):
    MemoryFactory(owner=alice, content="One memory")
    response = curator.get(reverse("dashboard:memories"), {"sort": "content"})
    assert response.status_code == 200
    assert response.context["sort_by"] == "created"


def test_pages_sorted_by_quality_follow_on_without_gaps_or_repeats(curator, alice, monkeypatch):
    monkeypatch.setattr("dashboard.views.BROWSER_PAGE_SIZE", 2)
    for score in (0.3, 0.9, 0.6, 0.45, 0.75):
        MemoryFactory(owner=alice, content=f"Memory scored {score}", quality=score, tags=["paged"])
    pages = [curator.get(URL, {"tag": "paged", "sort": "-quality", "page": number}) for number in (1, 2, 3)]
    scores = [[memory.quality_score for memory in page.context["page"]] for page in pages]
    assert scores == [[0.9, 0.75], [0.6, 0.45], [0.3]]


@pytest.mark.parametrize("page", ["x\x00", "-1", "0", "999999", "1e9"])
def test_a_hostile_page_number_shows_a_page_of_the_sorted_list(curator, alice, page):
    for score in (0.3, 0.9):
        MemoryFactory(owner=alice, content=f"Memory scored {score}", quality=score, tags=["hostile"])
    response = curator.get(URL, {"tag": "hostile", "sort": "-quality", "page": page})
    assert response.status_code == 200
    assert [memory.quality_score for memory in response.context["page"]] == [0.9, 0.3]
