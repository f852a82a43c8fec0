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

Adding an op: write its ``Explain`` beside its rules, with the same algebra (a test fails for an
entry without one, and when its arithmetic does not give the gradient the rule sent).
"""

from __future__ import annotations

from dataclasses import dataclass


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


# ---- functions ---------------------------------------------------------------------------------------
def _fn(name):
    def make(*args):
        return Ex(name, tuple(lift(a) for a in args))

    make.__name__ = name
    return make


exp, log, sqrt, sin, cos, sign, sigmoid = (_fn(n) for n in ("exp", "log", "sqrt", "sin", "cos", "sign",
                                                            "sigmoid"))
sinh, cosh, absolute, floor = _fn("sinh"), _fn("cosh"), _fn("abs"), _fn("floor")
NO_DERIVATIVE = Ex("no_derivative")  # PyTorch defines none: backward() fails before any step
Phi, phi = _fn("Phi"), _fn("phi")  # the standard normal CDF and density
gt, ge, lt, le, eq = (_fn(n) for n in ("gt", "ge", "lt", "le", "eq"))
both = _fn("and")  # both conditions hold
where = _fn("where")  # where(cond, a, b): a where cond holds, else b
between = _fn("between")  # between(x, P("min"), P("max")): min ≤ x ≤ max (a missing bound is open)
share = _fn("share")  # share(cond): 1/k where cond holds (k: how many hold), 0 elsewhere
clamp_below = _fn("clamp_below")  # clamp_below(x, lo): max(x, lo)
T = _fn("T")  # swap the last two dims
outer = _fn("outer")  # g vᵀ


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
