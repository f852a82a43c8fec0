"""A page per screen and language (tests/browser/support.py's CONFIGS), shared by the tests of one module:
each test chooses what it shows first, so the order of tests does not matter. A test marked
@pytest.mark.screens(configs) runs on those screens only."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from .support import CONFIGS, PageErrors, config_id, open_page


@pytest.fixture(scope="module", params=CONFIGS, ids=[config_id(c) for c in CONFIGS])
def shown(request, browser, server):
    """SimpleNamespace(page, width, height, lang, phone, wide) for one screen and language."""
    width, height, lang = request.param
    errors = PageErrors()
    page = open_page(browser, server, width, height, lang, errors=errors)
    yield SimpleNamespace(page=page, width=width, height=height, lang=lang, phone=width < 600,
                          wide=width > 1000, errors=errors)
    page.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console: {real}"


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
