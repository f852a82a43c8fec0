"""An op's explanation expression (engine/ops/explain.py) evaluated on the numbers of one backward
step and written out in the student's names, in English and Chinese.

``Walk(ctx).term(ex)`` returns the expression's value and text; every operation it performs on
arrays becomes a worked step (``Walk.worked``), and every named value it reads (a saved input, the
output, an extra array, the count ``n``) is listed once (``Walk.values``) under the name the text
uses. Parts that depend only on the op's arguments (``exponent − 1``) are folded into numbers.
Each step is computed by the engine's table of words (``engine.ops.explain.WORDS``), which also says
how a function or a comparison is written; the other words have a method here that writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.ops.explain import WORDS, Ex, compute
from engine.ops.keys import encode_key, select_key, slice_key
from engine.ops.shape import inverse_permutation

from .. import values as V
from .scan_words import ScanWords
from .text import Text, dims_text, fmt_num, key_text, right, shape_text, sup, tuple_text, wrap

SAVED_KEY = ("a", "b", "c")

# What the values that are not the student's tensors are.
SAYS = {
    "n": Text("how many elements are averaged", "参与平均的元素个数"),
    "k": Text("how many elements are equal to the result (ties share the gradient)",
              "等于结果的元素个数（并列时平分梯度）"),
    "coef": Text("−w at each sample's target class (−1 without weight=), 0 elsewhere",
                 "在每个样本的目标类别处为 −w（没有 weight= 时为 −1），其余为 0"),
    "denom": Text("the weights of the samples' target classes summed (how many samples, without weight=)",
                  "各样本目标类别的权重之和（没有 weight= 时为样本数）"),
    "index": Text("where the max (or min) was found along the dim", "沿该维度最大（或最小）值所在的下标"),
    "w": Text("the weight argument", "weight 参数"),
    "pw": Text("the pos_weight argument", "pos_weight 参数"),
    "cond": Text("the condition", "条件"),
}


# How the rules write an array an op's forward kept (its key is the engine's name for it).
EXTRA_LABELS = {"coef": "c", "denom": "Σw"}


@dataclass
class Ctx:
    """What one explanation reads: the op, its node's saved arrays and arguments, the names."""

    op: object  # OpDef
    params: dict
    saved: dict  # key ("a", "b", "c", "out", extras) -> array
    g: np.ndarray | None
    in_syms: list[str]
    out_sym: str
    in_shapes: list[tuple]
    out_shape: tuple
    index: int = 0  # the input being explained (a variadic op's rule reads it)
    dtype: str = "float64"  # the op's: worked numbers are shown to its precision (computed in float64)
    constant: frozenset = frozenset()  # inputs that are numbers the program wrote (``4`` in ``4 * x``)


@dataclass
class Term:
    value: object
    text: Text
    prec: int  # 0: a sentence or condition, 1: + −, 2: × ÷, 3: unary minus, 4: power, 5: atom
    ref: dict | None = None  # how a step names it: {"G": 1}, {"name": "c"}, {"num": 2}, {"step": k}
    const: bool = False  # depends on the op's arguments only
    chain: Text | None = None  # a where(...) as a list of cases, for an enclosing where to extend


@dataclass
class Walk(ScanWords):
    ctx: Ctx
    worked: list = field(default_factory=list)
    values: list = field(default_factory=list)
    _listed: dict = field(default_factory=dict)

    # ---- leaves ------------------------------------------------------------------------------
    def _named(self, name: str, value, what: str, note: str | None = None) -> Term:
        while name in self._listed and not _same(self._listed[name], value):
            name += "′"  # two different values under one name (never for names the page gives out)
        if name not in self._listed:
            self._listed[name] = value
            entry = {"name": name, "what": what, "value": V.value(np.asarray(value))}
            key = note or name
            if key in SAYS and what not in ("input", "output"):  # the program's own tensors get no note
                entry["says"] = SAYS[key].data()
            self.values.append(entry)
        return Term(np.asarray(value, dtype=np.float64) if np.asarray(value).dtype != bool else value,
                    Text.same(name), 5, {"name": name})

    def term(self, ex) -> Term:
        """The value and text of expression ``ex``."""
        method = getattr(self, "_" + ex.op, None)
        if method is not None:
            return method(*ex.args)
        word = WORDS.get(ex.op)
        if word is not None and word.sign is not None:
            return self._compare(ex.op, word.sign, *ex.args)
        return self._step_fn(ex)

    def _shown(self, value) -> dict:
        """A worked number as the page shows it: to the precision of the op's dtype."""
        v = np.asarray(value)
        if v.dtype == np.float64 and self.ctx.dtype in ("float32", "float16", "bfloat16"):
            v = v.astype(np.float32)
        return V.value(v)

    def term_g(self) -> Term:
        """The upstream gradient G."""
        return self._G()

    def _G(self) -> Term:
        return Term(np.asarray(self.ctx.g, dtype=np.float64), Text.same("G"), 5, {"G": 1})

    def _in(self, i: int) -> Term:
        if i in self.ctx.constant:  # a number in the formula, written as the program wrote it
            x = _scalar(self.ctx.saved[SAVED_KEY[i]])
            name = self.ctx.in_syms[i]
            negative = name.startswith("(")  # the name of a negative number is bracketed: (−3)
            return Term(x, Text.same(name[1:-1] if negative else name), 3 if negative else 5, {"num": x},
                        const=True)
        what = "input" if i < len(self.ctx.in_shapes) else "extra"  # data only: where's condition
        return self._named(self.ctx.in_syms[i], self.ctx.saved[SAVED_KEY[i]], what)

    def _out(self) -> Term:
        return self._named(self.ctx.out_sym, self.ctx.saved["out"], "output")

    def _extra(self, name: str) -> Term:
        return self._named(EXTRA_LABELS.get(name, name), self.ctx.saved[name], "extra", note=name)

    def _num(self, x) -> Term:
        return Term(x, Text.same(fmt_num(x)), 5 if (x >= 0 if isinstance(x, (int, float)) else True) else 3,
                    {"num": x}, const=True)

    def _param(self, name: str) -> Term:
        v = self.ctx.params.get(name)
        if v is None or isinstance(v, (bool, int, float, np.number)):
            return self._num(v) if v is not None else Term(None, Text.same("None"), 5, {"num": None}, True)
        label = {"weight": "w", "pos_weight": "pw"}.get(name, name)
        return self._named(label, np.asarray(v, dtype=np.float64), "param")

    def _count(self) -> Term:
        return self._named("n", count(self.ctx), "count")

    # ---- arithmetic -------------------------------------------------------------------------------
    def _binary(self, op: str, a: Term, b: Term, text: Text, prec: int) -> Term:
        if a.const and b.const:
            value = compute(op, [a.value, b.value])
            return self._num(_scalar(value))
        return self._record(op, [a, b], text, prec)

    def _record(self, op: str, args: list[Term], text: Text, prec: int, how: dict | None = None) -> Term:
        value = compute(op, [t.value for t in args], how)
        step = {"op": op, "args": [t.ref for t in args], "text": text.data(), "value": self._shown(value)}
        if how:
            step["how"] = how
        self.worked.append(step)
        return Term(value, text, prec, {"step": len(self.worked) - 1})

    def _add(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        return self._binary("add", a, b, Text.join(wrap(a, 1), " + ", right(b, 1)), 1)

    def _sub(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        return self._binary("sub", a, b, Text.join(wrap(a, 1), " − ", right(b, 2)), 1)

    def _mul(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        dot = "·" if _scalarish(a) or _scalarish(b) else " ⊙ "
        return self._binary("mul", a, b, Text.join(wrap(a, 2), dot, right(b, 2)), 2)

    def _div(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        return self._binary("div", a, b, Text.join(wrap(a, 2), " / ", right(b, 4)), 2)

    def _neg(self, a) -> Term:
        a = self.term(a)
        if a.const:
            return self._num(-a.value)
        return self._record("neg", [a], Text.join("−", wrap(a, 3)), 3)

    def _pow(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        if a.const and b.const:
            return self._num(_scalar(compute("pow", [a.value, b.value])))
        power = sup(b.value) if b.const else None
        text = Text.join(wrap(a, 5), power) if power else Text.join(wrap(a, 5), "^", wrap(b, 5))
        return self._record("pow", [a, b], text, 4)

    def _matmul(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        return self._record("matmul", [a, b], Text.join(wrap(a, 2), " · ", wrap(b, 3)), 2)

    def _T(self, a) -> Term:
        a = self.term(a)
        return self._record("T", [a], Text.join(wrap(a, 5), "ᵀ"), 5)

    def _outer(self, g, v) -> Term:
        g, v = self.term(g), self.term(v)
        return self._record("outer", [g, v], Text.join(wrap(g, 2), " · ", wrap(v, 5), "ᵀ"), 2)

    # ---- functions ---------------------------------------------------------------------------------
    def _step_fn(self, ex: Ex) -> Term:
        """A function word, written around its argument as ``WORDS`` says."""
        word = WORDS.get(ex.op)
        if word is None or word.written is None:
            raise KeyError(f"no explanation step for {ex.op!r}")
        a = self.term(ex.args[0])
        left, right = word.written
        inner = a.text if right or a.prec >= 5 else Text.join("(", a.text, ")")
        if a.const:
            return self._num(_scalar(compute(ex.op, [a.value])))
        return self._record(ex.op, [a], Text.join(left, inner, right), 5)

    def _no_derivative(self) -> Term:
        """PyTorch defines no derivative (floor_divide): said as a sentence; backward() fails."""
        shape = self.ctx.in_shapes[self.ctx.index]
        text = Text("none: PyTorch defines no derivative here, so backward() fails",
                    "无：PyTorch 没有定义这里的导数，所以 backward() 会报错")
        return Term(np.zeros(shape), text, 0, const=True)

    # ---- conditions -------------------------------------------------------------------------------
    def _compare(self, op: str, sign: str, a, b) -> Term:
        """A comparison word (``WORDS``' sign between its sides)."""
        a, b = self.term(a), self.term(b)
        text = Text.join(wrap(a, 1), f" {sign} ", wrap(b, 1))
        if a.const and b.const:
            return Term(bool(compute(op, [a.value, b.value])), text, 0, None, const=True)
        return self._record(op, [a, b], text, 0)

    def _and(self, a, b) -> Term:
        a, b = self.term(a), self.term(b)
        text = Text(f"{a.text.en} and {b.text.en}", f"{a.text.zh} 且 {b.text.zh}")
        return self._record("and", [a, b], text, 0)

    def _between(self, x, lo, hi) -> Term:
        x, lo, hi = self.term(x), self.term(lo), self.term(hi)
        xs = wrap(x, 1)
        if lo.value is None:
            text = Text.join(xs, " ≤ ", hi.text)
        elif hi.value is None:
            text = Text.join(xs, " ≥ ", lo.text)
        else:
            text = Text.join(lo.text, " ≤ ", xs, " ≤ ", hi.text)
        how = {"lo": lo.value, "hi": hi.value}
        return self._record("between", [x], text, 0, how)

    def _where(self, c, a, b) -> Term:
        c = self.term(c)
        if c.const:
            return self.term(a if c.value else b)
        a, b = self.term(a), self.term(b)
        if b.chain is not None:
            en = f"{a.text.en} if {c.text.en}, {b.chain.en}"
            zh = f"{c.text.zh} 时为 {a.text.zh}，{b.chain.zh}"
        else:
            en = f"{a.text.en} if {c.text.en}, else {b.text.en}"
            zh = f"{c.text.zh} 时为 {a.text.zh}，否则为 {b.text.zh}"
        term = self._record("where", [c, a, b], Text(en, zh), 0)
        term.chain = term.text
        return term

    def _share(self, c) -> Term:
        c = self.term(c)
        k = int(np.sum(np.asarray(c.value, dtype=bool)))
        self._named("k", k, "count")
        text = Text(f"1/k where {c.text.en}, else 0", f"{c.text.zh} 处为 1/k，其余为 0")
        return self._record("share", [c], text, 0)

    def _clamp_below(self, x, lo) -> Term:
        x, lo = self.term(x), self.term(lo)
        return self._record("clamp_below", [x], Text.join("max(", x.text, ", ", lo.text, ")"), 5,
                            {"lo": lo.value})

    # ---- shapes, reductions, indexing ---------------------------------------------------------------
    def _sum_over(self, x) -> Term:
        x = self.term(x)
        axis = _axis(self.ctx)
        dims = "" if axis is None else f", dim={dims_text(axis)}"
        return self._record("sum_over", [x], Text.join("sum(", x.text, dims, ")"), 5,
                            {"axis": list(axis) if isinstance(axis, tuple) else axis})

    def _spread(self, x) -> Term:
        x = self.term(x)
        p = self.ctx.params
        dims = p.get("dim")
        dims = [dims] if isinstance(dims, int) else (list(dims) if dims is not None else None)
        shape = list(p["shape"])
        how = {"shape": shape, "dims": dims, "keepdim": bool(p.get("keepdim", False))}
        s = shape_text(shape)
        inner = wrap(x, 1)
        text = Text(f"{inner.en}, copied to every element of {s}", f"{inner.zh}，复制到 {s} 的每个元素")
        return self._record("spread", [x], text, 0, how)

    def _reshape_back(self, x) -> Term:
        x = self.term(x)
        shape = list(self.ctx.params["in_shape"])
        return self._record("reshape", [x], Text.join(wrap(x, 5), f".reshape{tuple_text(shape)}"), 5,
                            {"shape": shape})

    def _permute_back(self, x) -> Term:
        x = self.term(x)
        inv = list(inverse_permutation(tuple(self.ctx.params["perm"])))
        text = Text.join(wrap(x, 5), "ᵀ") if self.ctx.op.name == "t" else \
            Text.join(wrap(x, 5), f".permute{tuple_text(inv)}")
        return self._record("permute", [x], text, 5, {"perm": inv})

    def _sum_back(self, x) -> Term:
        x = self.term(x)
        shape = list(self.ctx.params["in_shape"])
        frm, to = shape_text(self.ctx.params["shape"]), shape_text(shape)
        text = Text(f"{x.text.en} summed over the expanded dims: {frm} → {to}",
                    f"{x.text.zh} 在扩展出的维度上求和：{frm} → {to}")
        return self._record("sum_to", [x], text, 0, {"shape": shape})

    def _place(self, x) -> Term:
        x = self.term(x)
        ctx = self.ctx
        p, name = ctx.params, ctx.op.name
        if name in ("select", "slice"):
            key = encode_key(select_key(p) if name == "select" else slice_key(p))
        else:
            key = tuple(p["key"])
        at = f"{ctx.in_syms[0]}[{key_text(p, name)}]"
        add = any(type(k) is list for k in key)  # an advanced index may repeat positions
        text = Text(f"{x.text.en} put back at {at}, zeros elsewhere" + (" (repeated indices add up)" * add),
                    f"{x.text.zh} 放回 {at} 的位置，其余为 0" + ("（重复的下标相加）" * add))
        how = {"shape": list(p["in_shape"]), "key": list(key), "add": add}
        return self._record("place", [x], text, 0, how)

    def _pick(self, x) -> Term:
        x = self.term(x)
        return self._record("pick", [x], Text.join(wrap(x, 5), f"[{key_text(self.ctx.params, 'index')}]"), 5,
                            {"key": list(self.ctx.params["key"])})

    def _unless_written(self, x) -> Term:
        x = self.term(x)
        p = self.ctx.params
        if p.get("accumulate"):
            return x
        at = f"{self.ctx.in_syms[0]}[{key_text(p, 'index')}]"
        text = Text(f"{x.text.en}, with 0 where {at} was overwritten", f"{x.text.zh}，被覆盖的 {at} 处为 0")
        return self._record("unless_written", [x], text, 0, {"key": list(p["key"])})

    def _part(self, x) -> Term:
        x = self.term(x)
        p, i = self.ctx.params, self.ctx.index
        lead = ":, " * p["dim"]
        if "sizes" in p:
            start = sum(p["sizes"][:i])
            stop = start + p["sizes"][i]
            how, key = {"dim": p["dim"], "start": start, "stop": stop}, f"{lead}{start}:{stop}"
        else:
            how, key = {"dim": p["dim"], "start": i}, f"{lead}{i}"
        return self._record("part", [x], Text.join(wrap(x, 5), f"[{key}]"), 5, how)

    def _at_index(self, x) -> Term:
        x = self.term(x)
        p = self.ctx.params
        which = "max" if self.ctx.op.name.startswith("max") else "min"
        idx = self._named("index", self.ctx.saved["indices"], "extra")
        how = {"shape": list(p["shape"]), "dim": p["dim"], "keepdim": bool(p["keepdim"])}
        most = "最大" if which == "max" else "最小"
        text = Text(f"{x.text.en} at the index of the {which} along dim {p['dim']}, 0 elsewhere",
                    f"{x.text.zh} 放在第 {p['dim']} 维上{most}值的位置，其余为 0")
        return self._record("at_index", [x, idx], text, 0, how)

    # ---- the losses' helpers ------------------------------------------------------------------------
    def _if_param(self, name, when_none, otherwise) -> Term:
        return self.term(when_none if self.ctx.params.get(name) is None else otherwise)

    def _scaled(self, x) -> Term:
        x = self.term(x)
        if self.ctx.params.get("reduction") != "mean":
            return x
        n = self._count()
        return self._record("div", [x, n], Text.join(wrap(x, 2), " / n"), 2)

    def _weighted(self, x) -> Term:
        x = self.term(x)
        if self.ctx.params.get("weight") is None:
            return x
        w = self._param("weight")
        return self._record("mul", [w, x], Text.join("w ⊙ ", wrap(x, 2)), 2)

    def _per_class(self, x) -> Term:
        x = self.term(x)
        coef = self.ctx.saved.get("coef")
        how = {"coef_ndim": int(coef.ndim) if coef is not None else 0,
               "reduction": self.ctx.params.get("reduction")}
        if how["reduction"] == "mean" and "denom" in self.ctx.saved:  # nll_loss: G / Σw first, as torch
            return self._record("div", [x, self._extra("denom")], Text.join(wrap(x, 2), " / Σw"), 2)
        if how["reduction"] != "none" or how["coef_ndim"] <= 1:
            return x
        return self._record("per_class", [x], x.text, x.prec, how)


# ---- helpers ---------------------------------------------------------------------------------------
def _same(a, b) -> bool:
    """One value: the same array, or equal numbers."""
    return a is b or (np.ndim(a) == 0 and np.ndim(b) == 0 and bool(a == b))


def _scalarish(t: Term) -> bool:
    return t.const or np.ndim(t.value) == 0


def _scalar(value):
    v = np.asarray(value)
    x = v.reshape(-1)[0].item() if v.size == 1 else value
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return int(x)
    return x


def count(ctx: Ctx) -> int:
    """The elements a reduction (or a mean loss) divides by."""
    p = ctx.params
    shape = p.get("shape")
    if shape is None:
        return int(np.prod(ctx.in_shapes[0], dtype=np.int64))
    dims = p.get("dim")
    if dims is None:
        return int(np.prod(shape, dtype=np.int64))
    dims = [dims] if isinstance(dims, int) else dims
    return int(np.prod([shape[d] for d in dims], dtype=np.int64))


def _axis(ctx: Ctx):
    dim = ctx.params.get("dim")
    if ctx.op.name in ("softmax", "log_softmax", "softmax_backward_data", "log_softmax_backward_data"):
        return dim if len(ctx.out_shape) else None
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


__all__ = ["Ctx", "Term", "Walk", "count"]
