"""Run one program twice: in gradviz's engine (the runner, as the page does) and in real PyTorch
inside ``gradviz.record()``; and compare the two traces.

The program text is the test's own (an example or a course-style program), so running it with real
torch is ``exec`` of trusted code. Both sides start from the seed a run starts from (0), and the
engine draws PyTorch's random numbers, so both start from the same values.
"""

from __future__ import annotations

import linecache
import textwrap

import numpy as np
import torch

import gradviz
from engine.runner import run_program

# Relative: float32 values after a stack of layers differ by a few ulps, since PyTorch's matrix
# products (MKL) round in another order than NumPy's (relu-he's fifth layer: 1.07e-6).
TOL = 2e-6


def engine_trace(source: str, variables: dict | None = None):
    """The trace of the program as gradviz's runner runs it."""
    result = run_program(source, variables=variables)
    return result.trace, result.error


_counter = iter(range(10**9))


def torch_recording(source: str, variables: dict | None = None, seed: int = 0):
    """``gradviz.record()`` around the program, run by real PyTorch from ``seed``."""
    name = f"<program {next(_counter)}>"
    lines = []
    for var, spec in (variables or {}).items():
        lines.append(f"{var} = torch.tensor({spec['value']!r}, dtype=torch.float32, "
                     f"requires_grad={bool(spec.get('requires_grad', True))})")
    body = source
    if variables:
        body = f"__result = {source.strip()}\n__result.backward()\n"
    text = "\n".join(lines) + ("\n" if lines else "") + "with gradviz.record() as __rec:\n" + \
        textwrap.indent(body, "    ") + "\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    namespace = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "optim": torch.optim,
                 "gradviz": gradviz, "__name__": "__main__"}
    torch.manual_seed(seed)
    error = None
    try:
        exec(compile(text, name, "exec"), namespace)
    except RuntimeError as exc:  # a program that shows an error on purpose (backward twice)
        error = exc
    return namespace["__rec"], error


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= TOL * np.maximum(1.0, np.abs(b))))


def describe(trace) -> dict:
    """What must agree: nodes (kind, grad_fn or leaf name), edges (with the output of its source each
    reads), and each pass's steps."""
    nodes = [(n.kind, n.grad_fn if n.kind == "op" else n.name) for n in trace.nodes]
    edges = [(e.source, e.target, e.index, e.needs_grad, e.output) for e in trace.edges]
    steps = [[(s.node, s.kind) for s in bp.steps] for bp in trace.passes]
    return {"nodes": nodes, "edges": edges, "steps": steps}


def differences(ours, theirs) -> list[str]:
    """Where the recording of real torch (theirs) differs from the engine's trace (ours)."""
    out = []
    a, b = describe(ours), describe(theirs)
    for key in ("nodes", "edges", "steps"):
        if a[key] != b[key]:
            out.append(f"{key}: engine {a[key]}\n      torch  {b[key]}")
    if out:
        return out
    for n1, n2 in zip(ours.nodes, theirs.nodes):
        if not _close(n1.value, n2.value):
            out.append(f"node {n1.id} value: engine {n1.value} torch {n2.value}")
        if n1.kind == "op" and n1.op == "autograd_function":  # a program's own Function: what ctx saved
            if [t.name for t in n1.saved] != [t.name for t in n2.saved] or n1.params != n2.params or \
                    not all(_close(t1.value, t2.value) for t1, t2 in zip(n1.saved, n2.saved)):
                out.append(f"node {n1.id} saved: engine {n1.saved} {n1.params} torch {n2.saved} {n2.params}")
    for bp1, bp2 in zip(ours.passes, theirs.passes):
        if not _close(bp1.seed, bp2.seed):
            out.append(f"pass {bp1.index} seed")
        for s1, s2 in zip(bp1.steps, bp2.steps):
            where = f"pass {bp1.index} step {s1.index} (node {s1.node})"
            if not _close(s1.upstream, s2.upstream):
                out.append(f"{where} upstream: engine {s1.upstream} torch {s2.upstream}")
            if [f.edge for f in s1.received] != [f.edge for f in s2.received]:
                out.append(f"{where} received edges: {[f.edge for f in s1.received]} (engine) / "
                           f"{[f.edge for f in s2.received]} (torch)")
            for f1, f2 in zip(s1.received, s2.received):
                if not _close(f1.grad, f2.grad):
                    out.append(f"{where} received on edge {f1.edge}")
            if [f.edge for f in s1.sent] != [f.edge for f in s2.sent]:
                out.append(f"{where} sent edges")
            for f1, f2 in zip(s1.sent, s2.sent):
                if not _close(f1.grad, f2.grad):
                    out.append(f"{where} sent on edge {f1.edge}: engine {f1.grad} torch {f2.grad}")
            for attr in ("grad_before", "grad_after"):
                if not _close(getattr(s1, attr), getattr(s2, attr)):
                    out.append(f"{where} {attr}: engine {getattr(s1, attr)} torch {getattr(s2, attr)}")
            if s1.retained != s2.retained:
                out.append(f"{where} retained")
            if (s1.hook, s1.hook_line, s1.hook_col) != (s2.hook, s2.hook_line, s2.hook_col):
                out.append(f"{where} hook: engine {s1.hook} at {s1.hook_line}:{s1.hook_col} "
                           f"torch {s2.hook} at {s2.hook_line}:{s2.hook_col}")
    return out
