"""The job a worker process runs for ``POST /api/run``: run the program, serialize what it recorded.

It runs in a sandboxed child (``app.worker.jobs.run``). ``run_and_serialize`` returns plain data:
either ``{"response": <RunResponse minus drawings>}`` or ``{"program_error": <ErrorInfo>}`` when the
program could not run at all.
"""

from __future__ import annotations

import hashlib
import time

from engine.gcpause import gc_paused
from engine.tensor import Tensor
from engine.trace import node_id

from ..folding.delta import without_held
from ..schemas.common import error_info
from . import values
from .answer import prepare_answer, ran_out_of_time
from .extras import check_by_hand, extras_of
from .serialize import serialize_trace
from .why import diagnose_all, engine_subjects


def run_checked(source: str, variables: dict | None = None):
    """The program run by the runner: ``(its RunResult, None)``, or ``(None, {"program_error": ...})``
    when it could not run."""
    from engine.runner import ProgramError, run_program
    try:
        return run_program(source, variables=variables), None
    except ProgramError as exc:
        err = exc.error
        return None, {"program_error": error_info(err.type, err.message, err.line, err.col)}


def run_and_serialize(source: str, variables: dict | None = None, fold="auto", whole: bool = True,
                      later: bool = False, had: tuple[int, list[str]] | None = None) -> dict:
    """Run ``source`` with the runner and return the response data (no svg) or the program error.
    ``fold``: which parts of each view are open (app/folding/plan.py). ``whole`` False: only what an
    answer of one view holds (``view_answer``): no check by hand, no course views but the heat.
    ``later``: without what the page asks for when it shows it (app/worker/extras.py), and saying so
    (``extras_later``). ``had``: see ``serialize_trace``."""
    # Memory stays bounded by the runner's limits and the worker's address-space limit.
    with gc_paused():
        t0 = time.perf_counter()
        result, error = run_checked(source, variables)
        if error is not None:
            return error
        t1 = time.perf_counter()
        response = serialize_result(result, fold, whole, later, had)
        t2 = time.perf_counter()
        response["timings"] = {"run": t1 - t0, "serialize": t2 - t1}
        if whole and not later:
            kept = [bp["index"] for bp in response["backward"]]
            response["grad_check"] = check_by_hand(result.trace, kept, source, t0)
            response["timings"]["grad_check"] = time.perf_counter() - t2
        return {"response": response}


def run_for_http(source: str, variables: dict | None = None, fold="auto", later: bool = False) -> dict:
    """``run_and_serialize``, then the answer as JSON text with slots for the drawings
    (app/worker/answer.py)."""
    out = run_and_serialize(source, variables, fold, later=later)
    if "program_error" in out:
        return out
    with gc_paused():
        timings = out["response"]["timings"]
        timed_out = ran_out_of_time(out["response"])
        prepared = prepare_answer(out["response"])
        prepared["timings"] = timings
        prepared["timed_out"] = timed_out
        return {"prepared": prepared}


def extras_for_http(source: str, variables: dict | None = None) -> dict:
    """``POST /api/run/extras``: the program run again (runs are deterministic), then what its answer
    left for later (app/worker/extras.py) with the run's fingerprint and timings, or
    ``{"program_error": ...}``."""
    with gc_paused():
        t0 = time.perf_counter()
        result, error = run_checked(source, variables)
        if error is not None:
            return error
        t1 = time.perf_counter()
        extras = extras_of(result.trace, source, t0)
        extras["fingerprint"] = fingerprint(result.trace)
        extras["timings"] = {"run": t1 - t0, "extras": time.perf_counter() - t1}
        return {"extras": extras}


def open_for_http(source: str, variables: dict | None, view: int, opened: list[str],
                  had: list[str] | None = None) -> dict:
    """``POST /api/open``: run the program again (runs are deterministic) with the parts ``opened``
    of view ``view`` open; that view's nodes, steps and parts as JSON text with a slot for its
    drawing (app/worker/answer.py), without what a drawing with the parts ``had`` open showed
    (app/folding/delta.py), or ``{"program_error": ...}``."""
    held = None if had is None else (view, list(had))
    out = run_and_serialize(source, variables, {view: list(opened)}, whole=False, had=held)
    if "program_error" in out:
        return out
    resp = out["response"]
    if not 0 <= view < len(resp["views"]):
        return {"program_error": error_info("ValueError", f"the run has no view {view}")}
    with gc_paused():
        return {"prepared": prepared_view(resp, view, had, resp["timings"])}


def prepared_view(resp: dict, view: int, had: list[str] | None, timings: dict) -> dict:
    """The answer ``POST /api/open`` gives for view ``view`` of a serialized run, prepared as
    app/worker/answer.py does (without what a drawing with the parts ``had`` open showed), with
    ``timings``."""
    part = view_answer(resp, view)
    prepared = prepare_answer(part, without_held(part, had))
    prepared["timings"] = timings
    prepared["timed_out"] = ran_out_of_time(resp)
    return prepared


def view_answer(resp: dict, view: int) -> dict:
    """One view of a serialized run (an ``OpenResponse`` without its drawing): the nodes, edges,
    passes, parts and gradient heat it shows."""
    v = resp["views"][view]
    shown, edges = set(v["nodes"]), set(v["edges"])
    return {"views": [v], "fingerprint": resp["fingerprint"],
            "graph": {"nodes": [n for n in resp["graph"]["nodes"] if n["id"] in shown],
                      "edges": [e for e in resp["graph"]["edges"] if e["id"] in edges], "omitted_ops": 0},
            "backward": [bp for bp in resp["backward"] if bp["view"] == view],
            "parts": [p for p in resp["parts"] if p["view"] == view],
            "heat": [h for h in resp["lenses"]["heat"] if h["pass_index"] in v["passes"]],
            "timings": resp.get("timings", {})}


def serialize_result(result, fold="auto", whole: bool = True, later: bool = False,
                     had: tuple[int, list[str]] | None = None) -> dict:
    """A runner RunResult → the RunResponse fields except the drawings (``whole``, ``later``, ``had``:
    see ``run_and_serialize``)."""
    trace = result.trace
    output = node_id(trace, result.result) if result.result is not None else None
    out = serialize_trace(trace, output_node=output, fold=fold, whole=whole and not later, had=had)
    if later:
        out["extras_later"] = True
    out["variables"] = {name: variable(t, trace) for name, t in (result.variables or {}).items()
                        if isinstance(t, Tensor)}
    if whole:
        out["why"] = diagnose_all(trace, engine_subjects(trace, result.variables or {}))
    kept = {n["id"] for n in out["graph"]["nodes"]}
    for v in out["variables"].values():
        if v["node"] not in kept:  # a node of a training iteration that was summarized away
            v["node"] = None
    out["stdout"] = result.stdout or ""
    out["stdout_truncated"] = result.stdout_truncated
    err = result.error
    out["error"] = None if err is None else error_info(err.type, err.message, err.line, err.col)
    out["mode"] = result.mode
    out["free_names"] = list(result.free_names or [])
    out["auto_backward"] = bool(result.auto_backward)
    out["svg"] = ""
    out["fingerprint"] = fingerprint(trace)
    return out


def fingerprint(trace) -> str:
    """A digest of what a run recorded (its ops in order, its passes and their lengths): the same
    program run again must give the same one, or the page's answer and a part opened later would
    not fit together."""
    h = hashlib.sha1()
    h.update(" ".join(n.op if n.kind == "op" else "l" for n in trace.nodes).encode())
    h.update(" ".join(str(len(bp.steps)) for bp in trace.passes).encode())
    h.update(str(len(trace.edges)).encode())
    return h.hexdigest()[:16]


def variable(t: Tensor, trace) -> dict:
    """A ``VariableOut``: value and grad in full, or null plus a summary over 64 elements."""
    data = t.detach().numpy()
    v = values.value(data)
    # A non-leaf keeps a gradient only with retain_grad (reading it otherwise warns, as in torch).
    grad = t.grad if t.is_leaf or t.retains_grad else None
    g = values.value(None if grad is None else grad.detach().numpy())
    return {
        "shape": list(data.shape), "dtype": values.dtype_name(data.dtype),
        "value": v["data"], "value_summary": v["summary"],
        "grad": g["data"] if g else None, "grad_summary": g["summary"] if g else None,
        "requires_grad": t.requires_grad, "is_leaf": t.is_leaf,
        "grad_fn": t.grad_fn.name() if t.grad_fn is not None else None,
        "node": node_id(trace, t),
    }


def opens_for_http(source: str, variables: dict | None, states: list, seconds: float) -> dict:
    """The program run once more, then the answer ``POST /api/open`` gives for each ``(view, open,
    had)`` of ``states`` in turn, while less than ``seconds`` have gone by since the run ended:
    ``{"prepared": [each answer prepared as app/worker/answer.py does, with its JSON text]}``, or
    ``{"program_error": ...}``."""
    with gc_paused():
        t0 = time.perf_counter()
        result, error = run_checked(source, variables)
        if error is not None:
            return error
        ran = time.perf_counter()
        until = ran + seconds
        prepared, last = [], 0.0
        for view, opened, had in states:
            if prepared and time.perf_counter() + last > until:  # the next would end past the budget
                break
            t1 = time.perf_counter()
            held = None if had is None else (int(view), [str(p) for p in had])
            resp = serialize_result(result, {int(view): [str(p) for p in opened]}, whole=False, had=held)
            if not 0 <= int(view) < len(resp["views"]):
                break
            one = prepared_view(resp, int(view), had, {})
            last = time.perf_counter() - t1
            one["timings"] = {"run": ran - t0, "serialize": last}
            prepared.append(one)
        return {"prepared": prepared}
