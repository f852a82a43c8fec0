"""The explanation model of an op, as data beside its vector-Jacobian rules.

An op's entry in the table (``register(..., explain=Explain(...))``) says, for the page:

- ``forward``: what the op computes, written over its inputs ``{0}``, ``{1}``, ... (``"{0} · {1}"``,
  ``"σ({0})"``, ``"{0} @ {1}"``; ``{*}`` is every input of a variadic op). The page fills in the
  student's names: ``y = u · c``.
- ``about_zh``: the entry's ``description`` in Chinese.
- the rule of each input, as an expression over the names below, in one of two forms:
  ``local``: the op works element by element and the gradient sent is ``G ⊙ local`` (then summed
  back over broadcast dims); or ``vjp``: the gradient sent, written with ``G`` (a matrix product,
  a reduction, a reshape...).

Expressions are plain data (``Ex`` nodes), never closures: the server evaluates them on the
numbers a backward step used and shows every intermediate result, and a test recomputes that
arithmetic for every op and checks it gives the gradient the engine sent. The names:

- ``G``: the upstream gradient (∂L/∂output);
- ``X0``, ``X1``, ``X2``: the op's tensor inputs (as saved for backward: the entry must save
  them), ``Y``: its output (saved as ``"out"``), ``extra(k)``: an array its forward kept;
- ``P(name)``: a non-tensor argument (``exponent``, ``alpha``, ``dim``...), ``N``: how many
  elements a reduction or a ``mean`` loss divides by;
- functions: ``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``sinh``, ``cosh``, ``absolute``, ``floor``,
  ``sign``, ``sigmoid``, ``Phi`` and ``phi`` (the normal CDF and density), ``where(cond, a, b)`` with
  ``gt``, ``ge``, ``eq``, ``both``, ``between``; ``NO_DERIVATIVE`` where PyTorch defines none; and
  the shape-aware ones ``T`` (matrix transpose), ``outer``, ``sum_over`` (the reduced dims, kept),
  ``spread`` (a reduced gradient copied back to the input's shape),
  ``reshape_back``, ``permute_back``, ``sum_back`` (undo an ``expand``), ``place`` and ``pick``
  (indexing), ``part`` (this input's part of a cat/stack gradient).

``WORDS`` is the one table of the algebra's words: what each computes on float64 arrays (the server
works every step out with ``compute``, and tests recompute the steps with it) and how the page
writes a function (``exp(…)``, ``ln …``) or a comparison (``>``). The words with a sentence or a
shape of their own (``where``, ``place``, ``sum_over``...) are written by the explanation walk
(app/worker/explain/algebra.py), one method each.

Adding an op: write its ``Explain`` beside its rules, with the same algebra (a test fails for an
entry without one, for a word the table lacks, and when its arithmetic does not give the gradient
the rule sent). A new function or comparison is one line among the words below:
``tanh = new_word("tanh", lambda a: np.tanh(_f(a)), ("tanh ", ""))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import explain_arrays as W


@dataclass(frozen=True, slots=True, eq=False)
class Ex:
    """One node of an explanation expression: an operator and its arguments (``Ex`` or plain data)."""

    op: str
    args: tuple = ()

    def __add__(self, o):
        return Ex("add", (self, lift(o)))

    def __radd__(self, o):
        return Ex("add", (lift(o), self))

    def __sub__(self, o):
        return Ex("sub", (self, lift(o)))

    def __rsub__(self, o):
        return Ex("sub", (lift(o), self))

    def __mul__(self, o):
        return Ex("mul", (self, lift(o)))

    def __rmul__(self, o):
        return Ex("mul", (lift(o), self))

    def __truediv__(self, o):
        return Ex("div", (self, lift(o)))

    def __rtruediv__(self, o):
        return Ex("div", (lift(o), self))

    def __neg__(self):
        return Ex("neg", (self,))

    def __pow__(self, o):
        return Ex("pow", (self, lift(o)))

    def __matmul__(self, o):
        return Ex("matmul", (self, lift(o)))


def lift(x) -> Ex:
    """A number (or an Ex) as an Ex."""
    return x if isinstance(x, Ex) else Ex("num", (x,))


# ---- names -----------------------------------------------------------------------------------------
G = Ex("G")
X0, X1, X2 = Ex("in", (0,)), Ex("in", (1,)), Ex("in", (2,))
Y = Ex("out")
N = Ex("count")  # elements a reduction (or a loss with reduction="mean") divides by
ONE = lift(1)


def P(name: str) -> Ex:
    """A non-tensor argument of the op (its value is shown)."""
    return Ex("param", (name,))


def extra(name: str) -> Ex:
    """An array the op's forward kept for backward (``coef``, ``indices``)."""
    return Ex("extra", (name,))


# ---- the words ---------------------------------------------------------------------------------------
# Every operation a worked step may name, with what it computes on float64 arrays (``meaning(*args,
# **how)``) and, for a function or a comparison, how the page writes it. The page's text of any
# other word is written by its own rule in app/worker/explain/algebra.py.
@dataclass(frozen=True, slots=True)
class Word:
    """One word of the explanation algebra (see ``WORDS``)."""

    meaning: Callable
    written: tuple[str, str] | None = None  # a function: the text before and after its argument
    sign: str | None = None  # a comparison: the sign between its two sides


WORDS: dict[str, Word] = {}


def new_word(name: str, meaning: Callable, written: tuple[str, str] | None = None, sign: str | None = None):
    """Add word ``name`` to ``WORDS`` and return the function that writes it into an expression."""
    WORDS[name] = Word(meaning, written, sign)

    def make(*args):
        return Ex(name, tuple(lift(a) for a in args))

    make.__name__ = name
    make.__doc__ = f"The word ``{name}`` applied to its arguments, in an expression."
    return make


_f = W.f64
_erf = np.vectorize(math.erf, otypes=[np.float64])

# functions: written around their argument
exp = new_word("exp", lambda a: np.exp(_f(a)), ("exp(", ")"))
log = new_word("log", lambda a: np.log(_f(a)), ("ln ", ""))
sqrt = new_word("sqrt", lambda a: np.sqrt(_f(a)), ("√", ""))
sin = new_word("sin", lambda a: np.sin(_f(a)), ("sin ", ""))
cos = new_word("cos", lambda a: np.cos(_f(a)), ("cos ", ""))
sinh = new_word("sinh", lambda a: np.sinh(_f(a)), ("sinh ", ""))
cosh = new_word("cosh", lambda a: np.cosh(_f(a)), ("cosh ", ""))
absolute = new_word("abs", lambda a: np.abs(_f(a)), ("|", "|"))
floor = new_word("floor", lambda a: np.floor(_f(a)), ("⌊", "⌋"))
sign = new_word("sign", lambda a: np.sign(_f(a)), ("sign(", ")"))
sigmoid = new_word("sigmoid", lambda a: 1.0 / (1.0 + np.exp(-_f(a))), ("σ(", ")"))
Phi = new_word("Phi", lambda a: 0.5 * (1.0 + _erf(_f(a) / math.sqrt(2.0))), ("Φ(", ")"))  # the normal CDF
phi = new_word("phi", lambda a: np.exp(-0.5 * _f(a) ** 2) / math.sqrt(2.0 * math.pi), ("φ(", ")"))  # density
# comparisons: their sign between the two sides
gt = new_word("gt", lambda a, b: _f(a) > _f(b), sign=">")
ge = new_word("ge", lambda a, b: _f(a) >= _f(b), sign="≥")
lt = new_word("lt", lambda a, b: _f(a) < _f(b), sign="<")
le = new_word("le", lambda a, b: _f(a) <= _f(b), sign="≤")
eq = new_word("eq", lambda a, b: _f(a) == _f(b), sign="=")
# the words written by a rule of their own
both = new_word("and", lambda a, b: np.logical_and(a, b))  # both conditions hold
# where(cond, a, b): a where cond holds, else b
where = new_word("where", lambda c, a, b: np.where(np.asarray(c, dtype=bool), _f(a), _f(b)))
# between(x, P("min"), P("max")): min ≤ x ≤ max (a missing bound is open)
between = new_word("between", W.between)
share = new_word("share", W.share)  # share(cond): 1/k where cond holds (k: how many hold), 0 elsewhere
clamp_below = new_word("clamp_below", lambda a, lo: np.maximum(_f(a), lo))  # clamp_below(x, lo): max(x, lo)
T = new_word("T", W.T)  # swap the last two dims
outer = new_word("outer", lambda g, v: np.multiply.outer(_f(g), _f(v)))  # g vᵀ
NO_DERIVATIVE = Ex("no_derivative")  # PyTorch defines none: backward() fails before any step
# the arithmetic of ``Ex``'s operators, and the steps the shape-aware words below are worked out in
new_word("add", lambda a, b: _f(a) + _f(b))
new_word("sub", lambda a, b: _f(a) - _f(b))
new_word("mul", lambda a, b: _f(a) * _f(b))
new_word("div", lambda a, b: _f(a) / _f(b))
new_word("neg", lambda a: -_f(a))
new_word("pow", lambda a, b: np.power(_f(a), _f(b)))
new_word("matmul", lambda a, b: np.matmul(_f(a), _f(b)))
new_word("reshape", lambda a, shape: _f(a).reshape(tuple(shape)))
new_word("permute", lambda a, perm: np.transpose(_f(a), tuple(perm)))
new_word("sum_over", W.sum_over)
new_word("spread", W.spread)
new_word("sum_to", W.sum_to)
new_word("place", W.place)
new_word("pick", W.pick)
new_word("part", W.part)
new_word("unless_written", W.unless_written)
new_word("write_at", W.write_at)  # a CopySlices: the wrapped op's gradient put back at the written part
new_word("at_index", W.at_index)
new_word("per_class", W.per_class)


def compute(word: str, args: list, how: dict | None = None) -> np.ndarray:
    """The value of one worked step: ``word`` on ``args`` (arrays or numbers) with ``how``."""
    return np.asarray(WORDS[word].meaning(*args, **(how or {})))


def sum_over(x) -> Ex:
    """``x`` summed over the op's reduced dims (``P("dim")``), kept as size 1."""
    return Ex("sum_over", (lift(x),))


def spread(x) -> Ex:
    """A reduced gradient put back on the input's shape: every element gets its value."""
    return Ex("spread", (lift(x),))


def reshape_back(x) -> Ex:
    """``x`` reshaped to the input's shape (``P("in_shape")``)."""
    return Ex("reshape_back", (lift(x),))


def permute_back(x) -> Ex:
    """``x`` with the op's permutation (``P("perm")``) undone."""
    return Ex("permute_back", (lift(x),))


def sum_back(x) -> Ex:
    """``x`` summed over the dims an ``expand`` added or stretched."""
    return Ex("sum_back", (lift(x),))


def place(x) -> Ex:
    """Zeros of the input's shape with ``x`` written where the op read (repeats add up)."""
    return Ex("place", (lift(x),))


def pick(x) -> Ex:
    """The part of ``x`` at the op's index key."""
    return Ex("pick", (lift(x),))


def part(x) -> Ex:
    """This input's part of a cat/stack gradient."""
    return Ex("part", (lift(x),))


def unless_written(x) -> Ex:
    """``x`` with zeros where the op wrote (index_put without accumulate), else ``x``."""
    return Ex("unless_written", (lift(x),))


def at_index(x) -> Ex:
    """max/min along a dim: ``x`` at the chosen index (``extra("indices")``), zeros elsewhere."""
    return Ex("at_index", (lift(x),))


def scaled(x) -> Ex:
    """A loss's upstream gradient as its elements see it: ÷ n for ``reduction="mean"``."""
    return Ex("scaled", (lift(x),))


def weighted(x) -> Ex:
    """``x`` times the loss's ``weight`` argument, when it has one."""
    return Ex("weighted", (lift(x),))


def if_param(name: str, when_none: Ex, otherwise: Ex) -> Ex:
    """``when_none`` when the argument ``name`` is None, else ``otherwise``."""
    return Ex("if_param", (name, lift(when_none), lift(otherwise)))


@dataclass(frozen=True, slots=True)
class Explain:
    """How the page explains one op (see the module docstring)."""

    forward: str
    about_zh: str
    local: tuple | None = None
    vjp: tuple | None = None
    reversed_forward: str | None = None  # the forward when the op's ``reverse`` argument is set (3 // x)

    def rules(self) -> tuple:
        """One expression per input: the local derivatives or the vjps."""
        return self.local if self.local is not None else self.vjp

    @property
    def elementwise(self) -> bool:
        return self.local is not None


def local(forward: str, about_zh: str, *rules, reversed_forward: str | None = None) -> Explain:
    """An elementwise op: the gradient sent to input i is ``G ⊙ rules[i]`` (summed back over
    broadcast dims)."""
    return Explain(forward, about_zh, local=tuple(lift(r) for r in rules), reversed_forward=reversed_forward)


def vjp(forward: str, about_zh: str, *rules, reversed_forward: str | None = None) -> Explain:
    """Any other op: ``rules[i]`` is the gradient sent to input i, written with ``G``."""
    return Explain(forward, about_zh, vjp=tuple(lift(r) for r in rules), reversed_forward=reversed_forward)
