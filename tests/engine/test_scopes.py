"""The trace's scopes: module calls, loops and their iterations, as the runner records them (what
the drawing folds), and the scope a leaf belongs to."""

from engine.runner import run_program


def scopes(src: str):
    result = run_program(src)
    assert result.error is None, result.error
    return result.trace


def chain(trace, nid):
    """The scopes around node ``nid``, innermost first, as (kind, label or index)."""
    out = []
    s = trace.nodes[nid].scope
    while s is not None:
        sc = trace.scopes[s]
        out.append((sc.kind, sc.index if sc.kind == "iteration" else sc.label))
        s = sc.parent
    return out


def ops(trace, name):
    return [n.id for n in trace.nodes if n.kind == "op" and n.op == name]


def test_each_iteration_of_a_for_loop_is_a_scope_inside_the_loop():
    t = scopes("w = torch.tensor(2.0, requires_grad=True)\nh = w\n"
               "for step in range(3):\n    h = torch.tanh(h * w)\nh.backward()\n")
    loops = [s for s in t.scopes if s.kind == "loop"]
    assert [(s.label, s.line, s.col) for s in loops] == [("for step in range(3)", 3, 1)]
    assert [chain(t, n) for n in ops(t, "tanh")] == [
        [("iteration", k), ("loop", "for step in range(3)")] for k in range(3)]
    w = next(n for n in t.nodes if n.kind == "leaf" and n.name == "w")
    assert w.scope is None  # bound before the loop: not part of its first iteration


def test_nested_loops_comprehensions_and_while_loops():
    t = scopes("x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
               "ys = [x * k for k in range(2)]\n"
               "n = 0\n"
               "while n < 2:\n"
               "    for j in range(2):\n"
               "        x = x + 1.0\n"
               "    n += 1\n")
    muls = ops(t, "mul")
    assert [chain(t, m) for m in muls] == [[("iteration", k), ("loop", "for k in range(2)")]
                                           for k in range(2)]
    adds = ops(t, "add")
    assert len(adds) == 4
    assert chain(t, adds[3]) == [("iteration", 1), ("loop", "for j in range(2)"), ("iteration", 1),
                                 ("loop", "while n < 2")]
    # the inner loop runs once per outer iteration: two loop scopes, each of two iterations
    inner = [s for s in t.scopes if s.kind == "loop" and s.label == "for j in range(2)"]
    assert len(inner) == 2 and inner[0].parent != inner[1].parent


def test_a_generator_loop_holds_its_elements_not_what_consumes_them():
    t = scopes("xs = [torch.tensor(float(i), requires_grad=True) for i in range(3)]\n"
               "total = sum((x * 2.0 for x in xs), torch.tensor(0.0))\n"
               "total.backward()\n")
    for m in ops(t, "mul"):
        assert chain(t, m)[-1] == ("loop", "for x in xs")
    assert all(chain(t, a) == [] for a in ops(t, "add"))  # sum() adds outside the generator


def test_module_calls_nest_and_name_their_class():
    t = scopes("torch.manual_seed(0)\nmodel = nn.Sequential(nn.Linear(2, 3), nn.ReLU())\n"
               "model(torch.randn(4, 2)).sum().backward()\n")
    (relu,) = ops(t, "relu")
    assert chain(t, relu) == [("module", "1"), ("module", "model")]
    assert {s.type_name for s in t.scopes} == {"Sequential", "Linear", "ReLU"}
    weight = next(n.id for n in t.nodes if n.kind == "leaf" and n.name == "0.weight")
    assert chain(t, weight) == [("module", "0"), ("module", "model")]  # named by the call, not bound


def test_a_loop_that_records_nothing_leaves_no_scope_and_errors_leave_none_open():
    t = scopes("total = 0\nfor i in range(1000):\n    total += i\n"
               "x = torch.tensor(1.0, requires_grad=True)\n"
               "for i in range(3):\n"
               "    try:\n"
               "        for j in range(5):\n"
               "            y = x * 2.0\n"
               "            if j == 1:\n"
               "                raise ValueError('stop')\n"
               "    except ValueError:\n"
               "        pass\n"
               "    if i == 1:\n"
               "        break\n"
               "z = x + 1.0\n")
    assert [s.label for s in t.scopes if s.kind == "loop"] == ["for i in range(3)", "for j in range(5)",
                                                               "for j in range(5)"]
    (add,) = ops(t, "add")
    assert chain(t, add) == []  # the raise and the break closed every scope they left
