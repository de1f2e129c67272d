"""One tier rule colours every badge: the number shown never reads across a tier boundary."""

import pytest
from django.urls import reverse

from quality.rules import shown_score, tier
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (0.4996, "0.49"),
        (0.5, "0.50"),
        (0.6999, "0.69"),
        (0.7, "0.70"),
        (0.9500000000000001, "0.95"),
        (0.468221965486776, "0.47"),
    ],
)
def test_a_score_reads_with_two_decimals_inside_its_tier(score, shown):
    assert shown_score(score) == shown
    assert tier(float(shown)) == tier(score)


def test_the_memory_browser_badge_agrees_with_its_colour_at_the_boundary(curator, alice):
    memory = MemoryFactory(owner=alice, content="Borderline memory", quality_score=0.4996)
    html = curator.get(reverse("dashboard:memories")).content.decode()
    assert f'<span class="badge tier-low" title="quality score {memory.quality_score}">0.49</span>' in html


def test_the_admin_list_has_owner_filter_tags_and_tier_badges(admin_client, alice, bob):
    MemoryFactory(owner=alice, content="Tagged memory", tags=["deploy", "ops"], quality_score=0.4996)
    MemoryFactory(owner=bob, content="Bob's memory", quality_score=0.8)
    response = admin_client.get(reverse("admin:memories_memory_changelist"))
    html = response.content.decode()
    assert "By owner" in html
    only_bob = admin_client.get(reverse("admin:memories_memory_changelist"), {"owner__id__exact": bob.pk})
    assert [memory.content for memory in only_bob.context["cl"].result_list] == ["Bob's memory"]
    assert "deploy, ops" in html
    assert 'class="badge tier-low"' in html
    assert ">0.49<" in html
    assert "icon-no.svg" not in html
