"""Fixtures for tests/server (the app in-process): one app with its worker pool per module, and apps
of given settings started once per session, handed to each test as if new."""

import contextlib
import copy

import pytest
from fastapi.testclient import TestClient

from app.drawing import layout
from app.main import create_app
from app.settings import AppSettings


@pytest.fixture(scope="module")
def client(started_apps):
    """A TestClient of an app with one worker, its pool started once per session: each module finds
    it without a cookie and leaves its settings and the pool's ``call`` as they were."""
    app, c = started_apps(pool_workers=1)
    c.cookies.clear()
    settings, admission = copy.copy(app.state.settings), copy.copy(app.state.pool.admission.s)
    yield c
    app.state.settings.__dict__.update(settings.__dict__)
    app.state.pool.admission.s.__dict__.update(admission.__dict__)
    app.state.pool.__dict__.pop("call", None)


@pytest.fixture(scope="session")
def started_apps():
    """``get(**settings)``: ``(app, client)`` of an app made with ``AppSettings(**settings)``, its pool
    started at the first ask and kept for the session (a pool takes seconds to start)."""
    made: dict[tuple, tuple] = {}
    with contextlib.ExitStack() as stack:

        def get(**settings):
            key = tuple(sorted(settings.items()))
            if key not in made:
                app = create_app(AppSettings(**settings))
                made[key] = (app, stack.enter_context(TestClient(app, raise_server_exceptions=False)))
            return made[key]

        yield get


@pytest.fixture
def fresh_app(started_apps):
    """``get(**settings)``: a started app and its client as a test of its own would find them: an
    empty shared cache, no cookie (a browser the server has not seen), and afterwards the settings
    and the pool's ``call`` as they were (a test may change or wrap them)."""
    used = []

    def get(**settings):
        app, client = started_apps(**settings)
        layout.CACHE.clear()
        client.cookies.clear()
        pool = app.state.pool
        used.append((app, copy.copy(app.state.settings), pool, copy.copy(pool.admission.s)))
        return app, client

    yield get
    for app, settings, pool, admission in reversed(used):  # the first ask saw them as started
        app.state.settings.__dict__.update(settings.__dict__)
        pool.admission.s.__dict__.update(admission.__dict__)
        pool.__dict__.pop("call", None)  # a wrapper a test put on the instance
