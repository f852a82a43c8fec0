"""Each construct of the supported Python subset, run through ``run_program``."""

from __future__ import annotations

import textwrap

import pytest

from engine.runner import ProgramError, run_program


def run(src: str, **kw):
    r = run_program(textwrap.dedent(src), **kw)
    assert r.error is None, r.error
    return r


def out(src: str) -> str:
    return run(src).stdout


def test_assignments_unpacking_augmented():
    assert out("""
        a, b = 1, 2
        a, b = b, a
        x = y = 3
        x += 4
        first, *rest = [1, 2, 3, 4]
        *init, last = (5, 6, 7)
        (p, q), r = (1, 2), 3
        print(a, b, x, y, first, rest, init, last, p, q, r)
    """) == "2 1 7 3 1 [2, 3, 4] [5, 6] 7 1 2 3\n"


def test_attribute_and_subscript_targets():
    assert out("""
        d = {"k": 1}
        d["k"] += 1
        d["new"] = [0, 0]
        d["new"][1] = 5
        lst = [1, 2, 3]
        lst[0] = 10
        lst[1:3] = [7]
        print(d, lst)
    """) == "{'k': 2, 'new': [0, 5]} [10, 7]\n"


def test_arithmetic_comparisons_boolean_logic():
    assert out("""
        print(7 // 2, 7 % 3, 2 ** 10, -3 / 2, 1 < 2 < 3, 3 < 2 < 4, 1 == 1.0, 5 != 5)
        print(True and 0, None or "x", not [], 1 if 0 else 2, 3 in [1, 2, 3], "a" not in "bcd")
        print(0b101 | 0b010, 6 & 3, 6 ^ 3, 1 << 4, -(-2), ~5, abs(-2.5), divmod(7, 2))
    """) == ("3 1 1024 -1.5 True False True False\n0 x True 2 True True\n"
             "7 2 5 16 2 -6 2.5 (3, 1)\n")


def test_numbers_strings_lists_tuples_dicts_sets():
    assert out("""
        s = "Hello" + ", " + "world" * 2
        print(s.upper(), s.split(","), len(s), s[1:4], s[::-1][:3], "-".join(["a", "b"]))
        t = (1,)
        print(t, (), [], {}, set(), {1, 2} | {3}, list(range(3)), tuple("ab"), dict(a=1))
        print(sorted([3, 1, 2], reverse=True), min(4, 2), max([1, 9, 3]), sum([1, 2, 3]), round(2.567, 2))
        z = list(zip([1, 2], "ab"))
        print(any([0, 1]), all([1, 0]), list(reversed([1, 2])), z, list(enumerate("xy", 1)))
        print(int("12") + 1, float("1.5"), str(12), bool(0), isinstance(1, int), isinstance("s", (int, str)))
    """) == (
        "HELLO, WORLDWORLD ['Hello', ' worldworld'] 17 ell dlr a-b\n"
        "(1,) () [] {} set() {1, 2, 3} [0, 1, 2] ('a', 'b') {'a': 1}\n"
        "[3, 2, 1] 2 9 6 2.57\n"
        "True False [2, 1] [(1, 'a'), (2, 'b')] [(1, 'x'), (2, 'y')]\n"
        "13 1.5 12 False True True\n")


def test_comprehensions_and_lambda():
    assert out("""
        sq = [i * i for i in range(5) if i % 2 == 0]
        pairs = [(i, j) for i in range(3) for j in range(i)]
        d = {k: v for k, v in zip("ab", [1, 2])}
        s = {x % 3 for x in range(10)}
        g = sum(x for x in range(4))
        f = lambda x, y=2: x * y
        print(sq, pairs, d, s, g, f(3), f(3, y=3), list(map(lambda v: v + 1, [1, 2])))
    """) == "[0, 4, 16] [(1, 0), (2, 0), (2, 1)] {'a': 1, 'b': 2} {0, 1, 2} 6 6 9 [2, 3]\n"


def test_if_elif_else_and_loops():
    assert out("""
        def sign(x):
            if x > 0:
                return "+"
            elif x < 0:
                return "-"
            else:
                return "0"
        res = []
        for v in [3, -1, 0]:
            res.append(sign(v))
        i = 0
        while True:
            i += 1
            if i < 3:
                continue
            break
        for k in range(3):
            pass
        else:
            res.append("done")
        print(res, i)
    """) == "['+', '-', '0', 'done'] 3\n"


def test_for_over_tensors_enumerate_zip():
    assert out("""
        t = torch.tensor([1.0, 2.0, 3.0])
        total = 0.0
        for i, v in enumerate(t):
            total += v.item() * i
        for a, b in zip([1, 2], t):
            total += a * b.item()
        print(total)
    """) == "13.0\n"


def test_def_defaults_kwargs_varargs_recursion():
    assert out("""
        def f(a, b=2, *args, c=3, **kw):
            return a + b + c + sum(args) + sum(kw.values())
        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)
        def outer():
            k = 10
            def inner(x):
                return x + k
            return inner
        print(f(1), f(1, 1, 1, 1, c=0, z=5), fact(10), outer()(5))
    """) == "6 9 3628800 15\n"


def test_function_errors_are_pythons():
    r = run_program("def f(a, b):\n    return a\nf(1)\n")
    assert r.error.type == "TypeError"
    assert r.error.message == "f() missing 1 required positional argument: 'b'"
    assert (r.error.line, r.error.col) == (3, 1)
    r = run_program("x = 1\ndef g():\n    print(x)\n    x = 2\ng()\n")
    assert r.error.type == "UnboundLocalError"
    assert r.error.line == 3


def test_with_no_grad_enable_grad_set_grad_enabled():
    r = run("""
        w = torch.tensor(2.0, requires_grad=True)
        with torch.no_grad():
            a = w * 3
            with torch.enable_grad():
                b = w * 3
        torch.set_grad_enabled(False)
        c = w * 3
        torch.set_grad_enabled(True)
        with torch.set_grad_enabled(False):
            d = w * 3
        e = w * 3
        print(a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, e.requires_grad)
    """)
    assert r.stdout == "False True False False True\n"


def test_no_grad_decorator():
    assert out("""
        @torch.no_grad()
        def step(x):
            return x * 2
        w = torch.tensor(1.0, requires_grad=True)
        print(step(w).requires_grad)
    """) == "False\n"


def test_print_fstrings_and_format_specs():
    assert out("""
        loss = torch.tensor(0.123456, requires_grad=True)
        t = torch.tensor([1.0, 2.0])
        n = 3
        print(f"{loss.item():.4f} {n:>4d} {n!r} {'s'!r:>5} {t} {3.14159:{n}.{n - 1}f}")
        print("{} and {:.2f} and {name}".format(1, 2.0, name="x"), "%d/%5.1f" % (3, 2.25), "%s" % t)
        print(f"{t.sum()}", format(0.5, ".0%"), repr("a"), 1, 2, sep="|", end="!\\n")
    """) == ("0.1235    3 3   's' tensor([1., 2.]) 3.14\n1 and 2.00 and x 3/  2.2 tensor([1., 2.])\n"
             "tensor(3.)|50%|'a'|1|2!\n")


def test_classes_module_super_methods():
    r = run("""
        class Net(nn.Module):
            def __init__(self, n_in, n_out):
                super().__init__()
                self.fc1 = nn.Linear(n_in, n_out)
                self.scale = 2.0

            def forward(self, x):
                return self.helper(self.fc1(x))

            def helper(self, h):
                return torch.relu(h) * self.scale

        class Plain:
            def __init__(self):
                self.items = []
            def add(self, v):
                self.items.append(v)
                return self

        model = Net(3, 2)
        y = model(torch.ones(4, 3))
        p = Plain().add(1).add(2)
        print(tuple(y.shape), len(list(model.parameters())), p.items, isinstance(model, nn.Module))
    """)
    assert r.stdout == "(4, 2) 2 [1, 2] True\n"
    ops = [n for n in r.trace.nodes if n.kind == "op"]
    assert any(n.module and "fc1" in n.module for n in ops)


def test_super_with_arguments_and_inheritance():
    assert out("""
        class A:
            def __init__(self):
                self.v = 1
            def who(self):
                return "A"
        class B(A):
            def __init__(self):
                super(B, self).__init__()
                self.v += 1
            def who(self):
                return "B" + super().who()
        b = B()
        print(b.v, b.who())
    """) == "2 BA\n"


def test_imports_bind_the_engine():
    assert out("""
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch import nn as nn2, optim
        from torch.nn import Linear
        import torch.optim as O
        print(nn is nn2, Linear is nn.Linear, O is optim, F.relu(torch.tensor(-1.0)).item())
    """) == "True True True 0.0\n"


def test_try_except_finally_raise_assert():
    assert out("""
        try:
            1 / 0
        except ZeroDivisionError as e:
            print("caught", e)
        finally:
            print("finally")
        try:
            raise ValueError("bad")
        except (TypeError, ValueError) as e:
            print("ve", e.args)
        try:
            assert 1 == 2, "nope"
        except AssertionError as e:
            print(e)
    """) == "caught division by zero\nfinally\nve ('bad',)\nnope\n"


def test_name_main_guard_and_walrus_and_del():
    assert out("""
        if __name__ == "__main__":
            print("main")
        if (n := 3) > 2:
            print(n)
        x = 1
        del x
        try:
            x
        except NameError as e:
            print(e)
    """) == "main\n3\nname 'x' is not defined\n"


def test_tensor_indexing_and_setitem():
    assert out("""
        x = torch.zeros(3)
        x[0] = 5.0
        x[1:] += 1
        print(x, x[0].item())
    """) == "tensor([5., 1., 1.]) 5.0\n"


def test_expression_mode_free_names_and_torch_functions():
    r = run_program("sigmoid(x * w + b)", {"x": {"value": 2.0}, "w": {"value": 3.0}, "b": {"value": 1.0}})
    assert r.mode == "expression" and r.error is None
    assert r.free_names == ["x", "w", "b"]
    assert r.auto_backward
    assert r.result.item() == pytest.approx(0.9990889)
    r = run_program("(a + b) * c")
    assert r.free_names == ["a", "b", "c"]
    assert r.error.type == "NameError" and "variables table" in r.error.message
    r = run_program("(a + b) * c", {"a": {"value": [1.0, 2.0]}, "b": {"value": 1.0}, "c": {"value": 2.0}})
    assert not r.auto_backward and r.result.tolist() == [4.0, 6.0]
    r = run_program("a * 2", {"a": {"value": 1.0, "requires_grad": False}})
    assert not r.auto_backward and r.result.item() == 2.0


def test_program_mode_unknown_name_is_a_program_error():
    with pytest.raises(ProgramError) as ei:
        run_program("x = 1\ny = sigmoid(x)\n")
    assert ei.value.error.type == "NameError"
    assert "torch.sigmoid" in ei.value.error.message
    assert (ei.value.error.line, ei.value.error.col) == (2, 5)


def test_syntax_errors_carry_positions():
    with pytest.raises(ProgramError) as ei:
        run_program("x = (1 +\n")
    assert ei.value.error.type == "SyntaxError" and ei.value.error.line == 1
    with pytest.raises(ProgramError) as ei:
        run_program("return 5\n")
    assert ei.value.error.message == "'return' outside function"
    with pytest.raises(ProgramError) as ei:
        run_program("for i in range(2):\n    pass\nbreak\n")
    assert ei.value.error.message == "'break' outside loop" and ei.value.error.line == 3


def test_error_position_is_innermost_expression_and_earlier_output_kept():
    r = run_program("print('before')\nx = torch.ones(2)\ny = x + torch.ones(3)\n")
    assert r.stdout == "before\n"
    assert r.error.type == "RuntimeError" and "must match the size" in r.error.message
    assert (r.error.line, r.error.col) == (3, 5)
    assert "x" in r.variables


def test_names_and_locations_in_the_trace():
    r = run("""
        a = torch.tensor(2.0, requires_grad=True)
        b = torch.tensor(3.0, requires_grad=True)
        c = a * b
        d = (c + a).exp()
    """)
    names = {n.name for n in r.trace.nodes}
    assert {"a", "b", "c", "d"} <= names
    by_name = {n.name: n for n in r.trace.nodes}
    assert (by_name["c"].line, by_name["c"].col) == (4, 5)
    assert by_name["d"].line == 5
    add = next(n for n in r.trace.nodes if n.kind == "op" and n.op == "add")
    assert (add.line, add.col) == (5, 6)


def test_nonleaf_grad_warning_goes_to_stdout():
    r = run("""
        a = torch.tensor(2.0, requires_grad=True)
        b = a * 2
        b.backward()
        print(b.grad)
    """)
    assert r.stdout.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf")
    assert r.stdout.endswith("None\n")


def test_variables_only_tensors_bound_at_top_level():
    r = run("""
        a = torch.ones(2)
        n = 3
        def f():
            inner = torch.zeros(1)
            return inner
        b = f()
    """)
    assert set(r.variables) == {"a", "b"}


def test_engine_state_is_restored_after_a_run():
    import engine

    run("torch.set_grad_enabled(False)\ntorch.set_default_dtype(torch.float64)\n")
    assert engine.is_grad_enabled()
    assert engine.get_default_dtype() is engine.float32
    from engine import limits

    assert limits.ACTIVE is None


def test_seeded_runs_are_reproducible():
    a = run("x = torch.randn(3)\n").variables["x"].tolist()
    b = run("x = torch.randn(3)\n").variables["x"].tolist()
    assert a == b


def test_explicit_base_init():
    assert out("""
        class Net(nn.Module):
            def __init__(self):
                nn.Module.__init__(self)
                self.fc = nn.Linear(2, 1)
        class Child(Net):
            def __init__(self):
                Net.__init__(self)
                self.extra = 1
        print(len(list(Child().parameters())))
    """) == "2\n"
    r = run_program("x = torch.ones(1)\ny = [1]\ny.__init__([2])\n")
    assert r.error.type == "ForbiddenError"


def test_round_and_pow_builtins():
    src = "print(round(2.567, 2), round(7), round(1234, -2), round(5, -10 ** 9), pow(2, 10), pow(3, 4, 5))"
    assert out(src) == "2.57 7 1200 0 1024 1\n"


def test_property_staticmethod_classmethod_and_underscore_names():
    assert out("""
        class Counter:
            start = 10
            def __init__(self):
                self.n = 1
            @property
            def doubled(self):
                return self.start * 2
            @staticmethod
            def add(a, b):
                return a + b
            @classmethod
            def make(cls):
                return cls()
        c = Counter.make()
        total = 0
        for _ in range(3):
            total += Counter.add(1, 2)
        print(c.doubled, total)
    """) == "20 9\n"
    with pytest.raises(ProgramError) as ei:
        run_program("class A:\n    def __init__(self):\n        self._n = 1\n")
    assert ei.value.error.type == "ForbiddenError" and "'_n'" in ei.value.error.message


def test_generator_expressions_are_lazy():
    assert out("""
        print(any(x > 5 for x in range(10 ** 9)), all(x < 3 for x in range(10 ** 9)))
        g = (i * i for i in range(4) if i)
        print(next(g), list(g), sum(a * b for a in range(3) for b in range(3)))
    """) == "True False\n1 [4, 9] 9\n"


def test_ops_carry_the_innermost_call_position():
    r = run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = torch.exp(torch.sin(x)) + x.cos()
    """)
    ops = {n.op: (n.line, n.col) for n in r.trace.nodes if n.kind == "op"}
    assert ops["sin"] == (3, 15)
    assert ops["exp"] == (3, 5)
    assert ops["cos"] == (3, 31)
    assert ops["add"] == (3, 5)


def test_ops_inside_methods_carry_their_own_positions_and_module():
    r = run("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 1)
            def forward(self, x):
                h = self.fc(x)
                return torch.sigmoid(h)
        net = Net()
        out = net(torch.ones(3, 2))
    """)
    sig = next(n for n in r.trace.nodes if n.kind == "op" and n.op == "sigmoid")
    assert (sig.line, sig.col) == (8, 16)
    assert sig.module == "net"
    fc_ops = [n for n in r.trace.nodes if n.kind == "op" and n.module and n.module.endswith("fc")]
    assert fc_ops


def test_expression_mode_leaf_and_non_tensor_results():
    r = run_program("a", {"a": {"value": 3.0}})
    assert r.auto_backward and r.variables["a"].grad.item() == 1.0
    r = run_program("1 + 2")
    assert r.mode == "expression" and r.result is None and r.error is None and r.free_names == []
    r = run_program("a.sum()", {"a": {"value": [[1.0, 2.0], [3.0, 4.0]]}})
    assert r.auto_backward and r.variables["a"].grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
