"""Every HTML response carries a Content-Security-Policy that runs no inline script but its own: the
page and /ops only their module files, the one-file page (GET /offline, and the files written from
it) exactly its inline scripts by their hashes, the API docs their own code."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.offline import offline_data, page, shell
from app.server.csp import PAGE_POLICY, inline_scripts, script_hash
from app.settings import AppSettings

META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


@pytest.fixture(scope="module")
def http():
    """The app without its worker pool (no lifespan): these routes run nothing."""
    return TestClient(create_app(AppSettings(pool_workers=1)))


def directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        name, *values = part.split()
        out[name] = values
    return out


@pytest.mark.parametrize("path", ["/", "/?lang=zh", "/ops"])
def test_the_served_pages_run_only_their_own_files(http, path):
    r = http.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    policy = directives(r.headers["content-security-policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'self'"] and policy["default-src"] == ["'self'"]
    assert inline_scripts(r.text) == []  # the examples travel as JSON data, which does not run


def test_json_answers_are_left_as_they_are(http):
    r = http.get("/api/examples")
    assert r.status_code == 200 and "content-security-policy" not in r.headers


def test_the_page_as_one_file_allows_exactly_its_inline_script(http):
    r = http.get("/offline?lang=zh")
    (meta,) = META.findall(r.text)
    assert r.headers["content-security-policy"] == meta  # the header is the file's own policy
    policy = directives(meta)
    (code,) = inline_scripts(r.text)
    assert policy["script-src"] == [script_hash(code)]
    assert "'unsafe-inline'" not in policy["script-src"] and "frame-ancestors" not in policy
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    # the meta comes before any script, and filling the data slot changes no script
    assert r.text.index(meta) < r.text.index("<script")
    filled = page(offline_data({"views": []}, "x = 1\n", None), "en")
    assert META.findall(filled) == META.findall(shell("en"))
    assert [script_hash(s) for s in inline_scripts(filled)] == policy["script-src"]


def test_the_api_docs_have_their_own_policy(http):
    for path in ("/docs", "/redoc"):
        r = http.get(path)
        policy = directives(r.headers["content-security-policy"])
        assert "'unsafe-inline'" not in policy["script-src"] and policy["object-src"] == ["'none'"]
        for code in inline_scripts(r.text):
            assert script_hash(code) in policy["script-src"]
    assert "script-src 'self';" in PAGE_POLICY
