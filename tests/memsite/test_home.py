"""The address `make run` prints answers a browser with the dashboard and any client with links."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_a_browser_at_the_root_is_sent_to_the_dashboard():
    response = Client().get("/", HTTP_ACCEPT="text/html,application/xhtml+xml")

    assert response.status_code == 302
    assert response["Location"] == "/dashboard/"


def test_another_client_at_the_root_gets_where_things_are():
    response = Client().get("/", HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    assert response.json() == {
        "status": "success",
        "dashboard": "/dashboard/",
        "admin": "/admin/",
        "api_docs": "/api/docs/",
        "health": "/health",
    }
