"""Fixtures for tests/server (the app in-process): one app with its worker pool per module."""

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import AppSettings


@pytest.fixture(scope="module")
def client():
    """A TestClient whose lifespan starts (and stops) the worker pool."""
    app = create_app(AppSettings(pool_workers=1))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
