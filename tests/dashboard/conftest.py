import pytest

from tests.dashboard.curation import build_curation_data


@pytest.fixture(autouse=True)
def plain_static_storage(settings):
    """Serve static files by their plain names (no collectstatic manifest needed in tests)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def curation_data(alice):
    return build_curation_data(alice)


@pytest.fixture
def curator(client, staff):
    client.force_login(staff)
    return client
