"""Generator functions and the ``random`` subset, as course code uses them: lazy like Python's (the
consumer and the body interleave), under the run's limits, refused with a position where gradviz
does not run a yield; ``random`` gives Python's numbers for a seed and touches nothing else."""

from __future__ import annotations

import random

import pytest

from engine.runner import ProgramError, Settings, run_program


def _run(source: str, settings: Settings | None = None):
    try:
        result = run_program(source, settings=settings)
    except ProgramError as e:
        return "", e.error
    return result.stdout, result.error


def test_a_generator_runs_lazily_and_interleaves_with_its_consumer():
    out, err = _run(
        "def make(n):\n    for i in range(n):\n        print('make', i)\n        yield i * i\n"
        "    print('done')\n"
        "for v in make(3):\n    print('use', v)\n"
        "g = make(2)\nprint(next(g))\nprint(list(g))\n")
    assert err is None
    assert out == ("make 0\nuse 0\nmake 1\nuse 1\nmake 2\nuse 4\ndone\n"
                   "make 0\n0\nmake 1\ndone\n[1]\n")


def test_yield_from_return_while_if_and_recursion():
    out, err = _run(
        "def count(n):\n    i = 0\n    while True:\n        if i == n:\n            return\n"
        "        yield i\n        i += 1\n"
        "def walk(n):\n    if n > 0:\n        yield n\n        yield from walk(n - 1)\n"
        "    else:\n        yield from ['end']\n"
        "print(list(count(4)), list(walk(3)), sum(count(5)))\n"
        "for i in count(10):\n    if i == 2:\n        break\nprint(i)\n")
    assert err is None and out == "[0, 1, 2, 3] [3, 2, 1, 'end'] 10\n2\n"


def test_a_generator_s_error_and_its_position_reach_the_consumer():
    out, err = _run("def g():\n    yield 1\n    raise ValueError('boom')\nfor v in g():\n    print(v)\n")
    assert out == "1\n" and (err.type, err.message, err.line) == ("ValueError", "boom", 3)


def test_generators_stay_under_the_run_s_limits():
    _, err = _run("def forever():\n    while True:\n        yield 1\nfor v in forever():\n    pass\n")
    assert err.type == "LimitError"
    _, err = _run("def deep(n):\n    yield n\n    yield from deep(n + 1)\nfor v in deep(0):\n    pass\n")
    assert err.type in ("LimitError", "RecursionError")


@pytest.mark.parametrize("source, kind, line, col", [
    ("yield 1", "SyntaxError", 1, 1),
    ("def f():\n    x = yield 1\n", "ForbiddenError", 2, 9),
    ("def f():\n    with torch.no_grad():\n        yield 1\n", "ForbiddenError", 3, 9),
    ("def f():\n    try:\n        yield 1\n    finally:\n        pass\n", "ForbiddenError", 3, 9),
    ("f = lambda: (yield)", "ForbiddenError", 1, 14),
    ("def f():\n    return [(yield i) for i in range(3)]\n", "ForbiddenError", 2, 14),
])
def test_a_yield_gradviz_does_not_run_is_refused_before_anything_runs(source, kind, line, col):
    out, err = _run(source)
    assert out == "" and (err.type, err.line, err.col) == (kind, line, col)


def test_random_gives_python_s_numbers_for_every_seed():
    for seed in range(25):
        ref = random.Random(seed)
        expect = [ref.random(), ref.randint(1, 6), ref.uniform(-1, 2), ref.choice("abc"),
                  ref.sample(range(20), 4), ref.randrange(0, 100, 7), ref.gauss(0, 1)]
        items = list(range(12))
        ref.shuffle(items)
        expect.append(items)
        out, err = _run(
            f"import random\nrandom.seed({seed})\n"
            "print([random.random(), random.randint(1, 6), random.uniform(-1, 2), random.choice('abc'),"
            " random.sample(range(20), 4), random.randrange(0, 100, 7), random.gauss(0, 1)])\n"
            "items = list(range(12))\nrandom.shuffle(items)\nprint(items)\n")
        assert err is None and out == f"{expect[:-1]}\n{expect[-1]}\n"


def test_every_run_starts_random_from_the_same_state():
    first, _ = _run("import random\nprint(random.random())")
    _run("import random\nrandom.seed(123)\nrandom.random()")
    again, _ = _run("from random import random\nprint(random())")
    assert first == again == f"{random.Random(0).random()}\n"


@pytest.mark.parametrize("source, kind", [
    ("import random\nrandom.shuffle((1, 2))", "TypeError"),
    ("import random\nrandom.shuffle(torch.arange(3))", "TypeError"),
    ("import random\nrandom.choice({1: 2})", "TypeError"),
    ("import random\nrandom.seed([1])", "TypeError"),
    ("import random\nrandom.randrange(2 ** 100000)", "LimitError"),
    ("import random\nrandom.random = 4", "ForbiddenError"),
    ("import random\nrandom.Random(0)", "NotSupportedError"),
    ("import random\nrandom.SystemRandom", "NotSupportedError"),
])
def test_random_refuses_what_is_not_its_subset(source, kind):
    _, err = _run(source)
    assert err is not None and err.type == kind, err
