"""Check a backward pass by hand: each leaf's gradient from autograd beside a central finite
difference in float64 (and, for the built-in examples, the course's hand-derived formula).

It runs in the sandboxed worker, after the program, on the recorded graph: the pass's forward ops
are replayed (``engine.replay``) in float64 with one leaf element moved by ±h, so
``(f(x+h) − f(x−h)) / 2h`` needs no second run of the program. ``f`` is the pass's root weighted by
its seed (the root itself for a scalar loss). Tensors up to ``FULL`` elements are checked element
by element, larger ones at ``SAMPLE`` positions; only the ops downstream of the moved leaf are
replayed, and the whole check stops at its budget (op evaluations, and a time limit), saying which
leaves it could not check.
A pass lists its first ``LISTED`` leaves; the others are counted, so a model of thousands of
parameters does not make the answer megabytes long.
"""

from __future__ import annotations

import time

import numpy as np

from engine import replay
from engine.ops.table import OPS
from engine.replay import TooLarge
from engine.trace import LeafNode, Trace

from . import values as V

FULL = 64  # leaves with at most this many elements are checked in full
LISTED = 64  # leaves of a pass listed (and checked); a deep model's others are only counted
SAMPLE = 16  # positions checked in a larger leaf
MAX_OPS = 3000  # a pass with more recorded ops is not replayed
TOLERANCE = {"float64": 1e-6, "float32": 1e-3, "float16": 1e-2, "bfloat16": 1e-2}
STEP = 6e-6  # h relative to max(1, |x|): float64's cube-root rule for central differences
# The check may evaluate a few ops for every op the run recorded (and always enough for a small
# program): about a quarter of a run's own cost, so a big model's request is not slowed several
# times over by its check; leaves past it say they were not checked.
REPLAYS_PER_OP, MIN_REPLAYS = 2, 2000
REPLAY_RTOL = {"float64": 1e-9, "float32": 1e-3}  # the replay must reproduce the recorded loss


class OutOfTime(Exception):
    pass


class Budget:
    """What the check may still spend: a wall-clock deadline, and a number of op evaluations in the
    replays. The count makes the check's share of a request the same on a busy machine as on an idle
    one (so what is checked does not depend on load); the deadline only guards the request's time."""

    def __init__(self, seconds: float, replayed_ops: int | None = None):
        self.deadline = time.monotonic() + max(0.0, seconds)
        self.ops_left = replayed_ops

    def spend(self, ops: int) -> None:
        if time.monotonic() >= self.deadline:
            raise OutOfTime
        if self.ops_left is not None:
            if ops > self.ops_left:
                raise OutOfTime
            self.ops_left -= ops

    def spent(self) -> bool:
        return time.monotonic() >= self.deadline or self.ops_left == 0


def check_passes(trace: Trace, passes: list[int], budget_s: float, hand=None,
                 replayed_ops: int | None = None) -> list[dict]:
    """A ``GradCheckPass`` per pass index in ``passes`` (those the answer keeps), within ``budget_s``
    seconds and ``replayed_ops`` op evaluations in all (by default ``REPLAYS_PER_OP`` per op the
    trace recorded, at least ``MIN_REPLAYS``). ``hand(trace, bp)``: the course's formulas for this
    program, or None."""
    if replayed_ops is None:
        replayed_ops = max(MIN_REPLAYS, REPLAYS_PER_OP * sum(1 for n in trace.nodes if n.kind == "op"))
    budget = Budget(budget_s, replayed_ops)
    return [_check(trace, trace.passes[i], budget, hand) for i in passes]


def _check(trace: Trace, bp, budget: Budget, hand) -> dict:
    out = {"pass": bp.index, "status": "checked", "reason": None, "leaves": [], "unlisted": 0}
    leaf_steps = [s for s in bp.steps if s.kind == "leaf" and isinstance(trace.nodes[s.node], LeafNode)]
    out["unlisted"] = max(0, len(leaf_steps) - LISTED)
    leaf_steps = leaf_steps[:LISTED]
    if not leaf_steps:
        out.update(status="skipped", reason="autograd_grad" if bp.api != "backward" else "no_leaves")
        return out
    formulas = {}
    if hand is not None:
        try:
            formulas = hand(trace, bp) or {}
        except Exception:  # noqa: BLE001 - a formula that does not fit this run is left out
            formulas = {}
    # A tensor hook that returned a new gradient makes autograd's .grad differ from ∂f/∂x on purpose.
    out["hook_changed"] = any(s.kind == "hook" and s.grad_after is not None for s in bp.steps)
    replay = None
    reason = None
    if budget.spent():
        reason = "time_budget"
    elif _runs_program_code(trace, bp):
        reason = "program_function"
    else:
        try:
            replay = Replay(trace, bp)
            if not replay.reproduces():
                replay, reason = None, "replay_mismatch"
        except TooLarge:
            reason = "too_large"
        except Exception:  # noqa: BLE001 - an op the replay cannot run: say so, never fail the run
            replay, reason = None, "replay_failed"
    for s in leaf_steps:
        leaf = trace.nodes[s.node]
        entry = _leaf_entry(leaf, s.upstream, formulas.get(leaf.name))
        if replay is None:
            entry["reason"] = reason
        else:
            try:
                _numeric(entry, replay, leaf, s.upstream, budget)
            except OutOfTime:
                entry["reason"] = "time_budget"
        out["leaves"].append(entry)
    if replay is None:
        out["reason"] = reason
    return out


def _runs_program_code(trace: Trace, bp) -> bool:
    """Whether the pass goes through an op the table does not hold (a torch.autograd.Function of the
    program): replaying it would run the program's code again, which the check never does."""
    return any(trace.nodes[s.node].kind == "op" and trace.nodes[s.node].op not in OPS
               for s in bp.steps if s.kind == "op")


def _leaf_entry(leaf: LeafNode, grad, formula) -> dict:
    g = np.asarray(grad)
    entry = {"node": leaf.id, "name": leaf.name or "tensor", "dtype": str(g.dtype), "shape": list(g.shape),
             "autograd": V.value(g), "numeric": None, "positions": None, "checked": 0, "total": int(g.size),
             "rel_error": None, "tolerance": TOLERANCE.get(str(g.dtype), 1e-3), "ok": None, "reason": None,
             "hand": None}
    if formula is not None:
        value = np.asarray(formula["value"], dtype=np.float64)
        err = _rel(g.astype(np.float64).reshape(-1), value.reshape(-1)) if value.shape == g.shape else None
        entry["hand"] = {"formula": formula["formula"], "filled": formula.get("filled"),
                         "value": V.value(value), "rel_error": err}
    return entry


def _numeric(entry: dict, replay: Replay, leaf: LeafNode, grad, budget: Budget) -> None:
    g = np.asarray(grad, dtype=np.float64)
    n = g.size
    if n <= FULL:
        flat = np.arange(n)
    else:
        flat = np.sort(np.random.default_rng(leaf.id).choice(n, SAMPLE, replace=False))
    numeric = np.array([replay.derivative(leaf.id, int(i), budget) for i in flat])
    auto = g.reshape(-1)[flat]
    # A central difference cannot see below its rounding noise, about eps·|f| / h.
    noise = np.finfo(np.float64).eps * max(1.0, abs(replay.f(replay.base))) / STEP
    entry["checked"] = int(flat.size)
    if n <= FULL:
        entry["numeric"] = V.value(numeric.reshape(g.shape))
    else:
        entry["numeric"] = V.value(numeric)
        entry["positions"] = [list(map(int, np.unravel_index(int(i), g.shape))) for i in flat]
        entry["autograd_at"] = V.value(auto)
    if max(float(np.max(np.abs(auto))), float(np.max(np.abs(numeric)))) < 1e3 * noise:
        entry["reason"] = "below_resolution"
        return
    err = _rel(auto, numeric)
    entry["rel_error"] = V.number(err)
    entry["ok"] = bool(err < entry["tolerance"])


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    """‖a − b‖ / max(‖a‖, ‖b‖) (0 when both are zero)."""
    diff = float(np.linalg.norm(a - b))
    scale = max(float(np.linalg.norm(a)), float(np.linalg.norm(b)))
    return diff / scale if scale > 0 else 0.0


class Replay(replay.Replay):
    """The forward ops of one backward pass, replayed in float64 from recorded leaf values
    (``engine.replay``): ``f`` at the recorded leaves, and its central differences."""

    def __init__(self, trace: Trace, bp):
        super().__init__(trace, bp.root, MAX_OPS)
        self.root_output = getattr(bp, "root_output", 0)
        self.seed = np.asarray(bp.seed, dtype=np.float64)
        self.base = self.values(self.leaf_values())

    def _root(self, value):
        """The tensor backward started from, of its node's ``value`` (a piece of unbind's whole)."""
        return replay.output_of(self.trace, self.root, self.root_output, value)

    def f(self, vals: dict) -> float:
        return float(np.sum(self.seed * self._root(vals[self.root])))

    def reproduces(self) -> bool:
        """The replay gives the loss the program recorded (to the run's precision)."""
        recorded = self._root(np.asarray(self.trace.nodes[self.root].value))
        got = self._root(self.base[self.root])
        rtol = REPLAY_RTOL.get(str(recorded.dtype), 1e-3)
        if got.shape != recorded.shape:
            return False
        atol = rtol * max(1.0, float(np.max(np.abs(got))))
        return bool(np.allclose(got, recorded.astype(np.float64), rtol=rtol, atol=atol))

    def derivative(self, leaf: int, i: int, budget: Budget) -> float:
        """∂f/∂leaf[i] by a central difference."""
        ops = self.downstream(leaf)
        budget.spend(2 * len(ops))
        x = self.base[leaf]
        xi = float(x.reshape(-1)[i])
        h = STEP * max(1.0, abs(xi))
        sides = []
        for sign in (1.0, -1.0):
            moved = x.copy()
            moved.reshape(-1)[i] = xi + sign * h
            vals = dict(self.base)
            vals[leaf] = moved
            sides.append(self.f(self.values(vals, ops)))
        return (sides[0] - sides[1]) / (2 * h)
