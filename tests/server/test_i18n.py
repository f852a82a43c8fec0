"""Both languages everywhere: every string of the page, the examples, the MLP builder's comments and
the limit names exist in Chinese, and a Chinese string is not the English one (except the few that
are the same in both: code, grad_fn names, a language's own name)."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest

from app.examples import EXAMPLES
from app.mlp.builder import MlpConfigError, build_program
from app.schemas import MlpConfig

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
# The same in both languages on purpose: code and API names, symbols, a language's name for itself.
SAME = {"col_rg", "col_grad", "error_noloc", "none", "gc_autograd", "mlp_relu", "mlp_tanh", "mlp_sigmoid",
        "mlp_sgd", "mlp_adam", "mlp_style_sequential", "tr_iteration_of", "ho_badge_short",
        "gh_param_row"}


@pytest.fixture(scope="module")
def page_strings() -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = ("const i = await import('./static/js/i18n.js');"
              "console.log(JSON.stringify(i.STRINGS));")
    out = subprocess.run([node, "--input-type=module", "-e", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_page_string_is_in_chinese(page_strings):
    en, zh = page_strings["en"], page_strings["zh"]
    assert set(en) == set(zh), (sorted(set(en) - set(zh)), sorted(set(zh) - set(en)))
    same = sorted(k for k in en if en[k] == zh[k] and k not in SAME)
    assert not same, same
    for k in en:
        code = r"\{\w+\}|\b[a-z_]+\(\)|[\w.]+_\w+|grad_fn|autograd|PyTorch|gradviz|float\d+|\.grad"
        words = re.sub(code, "", en[k])
        if k not in SAME and re.search(r"[A-Za-z]{4,}", words):
            assert CJK.search(zh[k]), f"{k}: {zh[k]!r}"
    for k in en:  # the same placeholders in both
        assert set(re.findall(r"\{(\w+)\}", en[k])) == set(re.findall(r"\{(\w+)\}", zh[k])), k


def test_the_drawings_legend_is_translated_with_the_words_graphviz_writes(page_strings):
    from app.drawing.dot_text import LEGEND

    words = {key[3:]: (page_strings["en"][key], page_strings["zh"][key]) for key in page_strings["en"]
             if key.startswith("dl_")}
    assert words == {key: (en, zh) for key, en, zh in LEGEND}


def test_every_limit_has_its_words_in_both_languages(page_strings):
    from engine.runner import Settings

    names = [k for k, v in asdict(Settings()).items() if isinstance(v, int | float) and k != "seed"]
    for name in names:
        key = f"lim_{name}"
        assert key in page_strings["en"] and CJK.search(page_strings["zh"][key]), key


def test_examples_are_titled_and_described_in_both_languages():
    for ex in EXAMPLES:
        assert CJK.search(ex["title"]["zh"]) and ex["title"]["zh"] != ex["title"]["en"], ex["id"]
        assert CJK.search(ex["description"]["zh"]), ex["id"]


def _configs():
    datasets = {"linear": dict(input_size=1, output_size=1, loss="mse", hidden=""),
                "xor": {}, "moons": {}, "circles": dict(loss="mse", output_size=1),
                "blobs": dict(output_size=3, loss="mse")}
    choices = itertools.product(datasets.items(), (1, 2), (True, False), ("module", "sequential"),
                                ("float32", "float64"))
    for (ds, kw), acc, zero, style, dtype in choices:
        yield MlpConfig(dataset=ds, accumulate=acc, zero_grad=zero, style=style, dtype=dtype, batch_size=50,
                        lang="zh", steps=10, **kw)


def test_the_mlp_builders_comments_follow_the_page(page_strings):
    seen = 0
    for cfg in _configs():
        try:
            zh, _ = build_program(cfg)
        except MlpConfigError:
            continue
        en, _ = build_program(cfg.model_copy(update={"lang": "en"}))
        code = [line.partition("#")[0] for line in zh.splitlines()]
        assert code == [line.partition("#")[0] for line in en.splitlines()], "only the comments change"
        for line in zh.splitlines():
            if "#" in line:
                assert CJK.search(line.partition("#")[2]), line
                seen += 1
    assert seen > 100


@pytest.fixture(scope="module")
def catalogue_files() -> dict:
    """Each file of the page's catalogue (static/js/i18n/), by its path under a language, in each
    language: {"en": {"en.js": {...}, "en/training.js": {...}}, "zh": {...}}, as node reads them."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = ("const out = {};"
              "for (const lang of ['en', 'zh']) {"
              "  const files = {};"
              "  for (const f of process.argv.slice(1).filter((f) => f.startsWith(lang))) {"
              "    const m = await import('./static/js/i18n/' + f);"
              "    files[f] = Object.values(m)[0];"
              "  }"
              "  out[lang] = files;"
              "}"
              "console.log(JSON.stringify(out));")
    base = ROOT / "static" / "js" / "i18n"
    files = sorted(str(p.relative_to(base)) for p in base.rglob("*.js"))
    out = subprocess.run([node, "--input-type=module", "-e", script, *files], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_file_of_the_catalogue_has_its_twin_with_the_same_keys(catalogue_files):
    en, zh = catalogue_files["en"], catalogue_files["zh"]
    assert len(en) >= 3 and {f.replace("en", "zh", 1) for f in en} == set(zh)
    for name, words in en.items():
        twin = zh[name.replace("en", "zh", 1)]
        assert list(words) == list(twin), name  # same keys, in the same order


def test_no_page_module_outside_the_catalogue_holds_chinese():
    js = ROOT / "static" / "js"
    held = [str(p.relative_to(js)) for p in sorted(js.rglob("*.js"))
            if p.parent != js / "i18n" and js / "i18n" not in p.parents and CJK.search(p.read_text())]
    assert not held, held
    assert len(list(js.rglob("*.js"))) > 40  # the walk finds the modules
    # the templates: only the language switch's label, shown before the page's script fills it
    pages = (ROOT / "templates").glob("*.html")
    shown = {p.name: re.findall(r"[\u4e00-\u9fff]+", p.read_text()) for p in pages}
    assert {name: words for name, words in shown.items() if words} == {"index.html": ["中文"]}


def test_the_server_reads_every_word_of_the_catalogue_it_draws_with(catalogue_files):
    from app.drawing.dot_text import LEGEND, SCALAR
    from app.words.page import page_words

    for lang in ("en", "zh"):
        main = catalogue_files[lang][f"{lang}.js"]
        parts = [w for f, w in catalogue_files[lang].items() if f != f"{lang}.js"]
        own = {k: v for k, v in main.items() if not any(k in w for w in parts)}
        assert page_words(lang) == own
    en = catalogue_files["en"]["en.js"]
    assert [words for _, words, _ in LEGEND] == [v for k, v in en.items() if k.startswith("dl_")]
    assert SCALAR == en["dn_scalar"]
