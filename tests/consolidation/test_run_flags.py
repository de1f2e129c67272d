import pytest

from quality.models import ConsolidationRun

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("value", [0, -0.0, 1, "false", "true", "no", None])
def test_dry_run_must_be_a_json_boolean(staff_client, value):
    response = staff_client.post("/api/consolidation/run", {"dry_run": value}, format="json")

    assert response.status_code == 400
    assert response.json()["message"].startswith("'dry_run': ")
    assert not ConsolidationRun.objects.exists()


@pytest.mark.parametrize("value", [1, "true"])
def test_evaluate_all_must_be_a_json_boolean(alice_client, value):
    response = alice_client.post("/api/quality/evaluate", {"all": value}, format="json")

    assert response.status_code == 400
    assert response.json()["message"].startswith("'all': ")
