"""A page per screen and language (tests/browser/support.py's CONFIGS), shared by the tests of one module:
each test chooses what it shows first, so the order of tests does not matter. A test marked
@pytest.mark.screens(configs) runs on those screens only."""

from __future__ import annotations

import pytest

from .support import CONFIGS, Screens, config_id


@pytest.fixture(scope="module")
def screens(browser, server):
    """The module's pages, one per screen and language, opened when first asked for (support.Screens);
    at the end of the module, no error but 4xx answers in their consoles."""
    pool = Screens(browser, server)
    yield pool
    real = pool.close()
    assert not real, f"errors in the browser console: {real}"


@pytest.fixture(scope="module", params=CONFIGS, ids=[config_id(c) for c in CONFIGS])
def shown(request, screens):
    """SimpleNamespace(page, width, height, lang, phone, wide) for one screen and language."""
    return screens.get(request.param)


def pytest_collection_modifyitems(config, items):
    """Leave out the screens a test marked @pytest.mark.screens(...) does not ask for."""
    keep, drop = [], []
    for item in items:
        marker = item.get_closest_marker("screens")
        params = getattr(getattr(item, "callspec", None), "params", {})
        if marker and "shown" in params and tuple(params["shown"]) not in {tuple(c) for c in marker.args[0]}:
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
