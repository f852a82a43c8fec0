"""The single-file page's script without its whole-line comments: only comments go, never a line of
a template literal or code, and the page's real modules still parse."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from app.bundle import bundle
from app.js_comments import strip_comment_lines
from app.package import STATIC


def test_whole_line_comments_go_and_code_stays():
    src = ("// a line comment\n"
           "/** a block\n * over lines */\n"
           "const a = 1; // a trailing comment stays with its code\n"
           "  /* an indented block */\n"
           "const b = 2; /* inline */ const c = 3;\n"
           "/* a block */ const d = 4;\n")
    assert strip_comment_lines(src) == ("const a = 1; // a trailing comment stays with its code\n"
                                        "const b = 2; /* inline */ const c = 3;\n"
                                        "/* a block */ const d = 4;\n")


def test_template_literals_strings_and_regexes_are_text():
    src = ("const t = `first\n// not a comment: the template's text\n/* nor this */ ${x + `\n"
           "// nested template text\n`} end`;\n"
           "const s = '// a string'; const q = \"/* also */\";\n"
           "const r = /[/`]+\\/\\//g; // a regex with a backtick and slashes\n"
           "// gone\n"
           "const k = a / b / c; return /`/.test(t);\n")
    out = strip_comment_lines(src)
    assert out == src.replace("// gone\n", "")


def test_the_pages_bundle_loses_only_comments_and_still_parses(tmp_path):
    whole = bundle(STATIC / "js" / "main.js")
    stripped = strip_comment_lines(whole)
    assert len(stripped) < 0.9 * len(whole)
    ops = difflib.SequenceMatcher(a=whole.split("\n"), b=stripped.split("\n"), autojunk=False).get_opcodes()
    for tag, i1, i2, _, _ in ops:
        assert tag in ("equal", "delete"), tag
        if tag == "delete":
            for line in whole.split("\n")[i1:i2]:
                assert line.strip().startswith(("//", "/*", "*")), line
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the parse check needs it")
    path = Path(tmp_path) / "page.mjs"
    path.write_text(stripped)
    result = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
