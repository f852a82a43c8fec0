"""What a recording reads of the block's own code: where in it each op ran, the names it binds
(tensors and modules, as the runner names them), the tensors it bound at the end, and its source as
the page's editor shows it."""

from __future__ import annotations

import ast
import linecache
import sys
import textwrap

from .torch_parts import to_numpy


class BlockReading:
    """The user's-code half of a recording session (mixed into ``recording._Session``)."""

    # ---- where the user's code is --------------------------------------------------------------------
    def is_user(self, code) -> bool:
        return code.co_filename in self.user_files

    def where(self) -> tuple[int, int] | None:
        """(line, column) of the op running now, in the block's code as the page shows it (None:
        outside the block)."""
        f = sys._getframe(2)
        while f is not None and not self.is_user(f.f_code):
            f = f.f_back
        if f is None or self.first_line is None:
            return None
        try:
            pos = next(p for i, p in enumerate(f.f_code.co_positions()) if i == f.f_lasti // 2)
            line, col = pos[0] or f.f_lineno, (pos[2] + 1 if pos[2] is not None else None)
        except (StopIteration, ValueError):
            line, col = f.f_lineno, None
        if not self.first_line <= line < self.first_line + self.source_lines.count("\n"):
            return None
        return (line - self.first_line + 1, None if col is None else max(1, col - self.block_indent))

    def global_trace(self, frame, event, arg):
        if event == "call" and self.is_user(frame.f_code):
            return self.line_trace
        return None

    def line_trace(self, frame, event, arg):
        if event in ("line", "return"):
            self.resolve()
            self.name_locals(frame)
        return self.line_trace

    def name_locals(self, frame) -> None:
        """Name the tensors (and modules) the user's code has bound, as the runner does."""
        for name, value in list(frame.f_locals.items()):
            if name.startswith("__") or name == "self":
                continue
            if isinstance(value, self.torch.Tensor):
                view = self.tensors.get(id(value))
                if view is not None and view.tensor is value:
                    self.rec.name_tensor(view, name)
            elif isinstance(value, self.torch.nn.Module) and value not in self.modules:
                self.modules[value] = name

    def variables(self) -> dict:
        """The tensors the block's own code bound, as the page's named-tensor table shows them."""
        from app.worker import values
        from app.worker.why import Subject
        from engine.trace import node_id

        out = {}
        for name, value in self.caller.f_locals.items():
            if name.startswith("_") or not isinstance(value, self.torch.Tensor):
                continue
            view = self.tensors.get(id(value))
            data = to_numpy(value)
            v = values.value(data)
            grad = value.grad if value.is_leaf or value.retains_grad else None
            g = values.value(None if grad is None else to_numpy(grad))
            node = None
            if view is not None:
                fv = self.fns.get(id(value.grad_fn)) if value.grad_fn is not None else None
                node = node_id(self.rec.trace, _Probe(fv, view))
            self.result.subjects.append(Subject(
                name, node, bool(value.requires_grad), bool(value.is_leaf), bool(value.retains_grad),
                None if grad is None else to_numpy(grad), data))
            out[name] = {
                "shape": list(data.shape), "dtype": values.dtype_name(data.dtype), "value": v["data"],
                "value_summary": v["summary"], "grad": g["data"] if g else None,
                "grad_summary": g["summary"] if g else None, "requires_grad": bool(value.requires_grad),
                "is_leaf": bool(value.is_leaf),
                "grad_fn": value.grad_fn.name().rsplit("::", 1)[-1] if value.grad_fn is not None else None,
                "node": node,
            }
        return out

    # ---- the block's code, for the page's editor ----------------------------------------------------------
    def _block_source(self) -> str:
        """The body of the with-statement (dedented), so the page shows the code it ran; the trace's
        positions of ops are given in it (``where``)."""
        code = self.caller.f_code
        filename = code.co_filename
        lines = linecache.getlines(filename, self.caller.f_globals)
        line = self.caller.f_lineno
        self.first_line = None
        self.block_indent = 0
        if not lines:
            return "# recorded from PyTorch (the code is not available)\n"
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            return "# recorded from PyTorch (the code is not available)\n"
        best = None
        for node in ast.walk(tree):
            if isinstance(node, ast.With) and node.lineno <= line <= (node.end_lineno or node.lineno):
                if best is None or node.lineno > best.lineno:
                    best = node
        if best is None or not best.body:
            return "# recorded from PyTorch (the code is not available)\n"
        start, end = best.body[0].lineno, best.body[-1].end_lineno or best.body[-1].lineno
        self.first_line = start
        raw = "".join(lines[start - 1:end])
        text = textwrap.dedent(raw)
        self.block_indent = len(raw.split("\n", 1)[0]) - len(text.split("\n", 1)[0])
        return text


class _Probe:
    """What ``trace.node_id`` reads of a tensor: its grad_fn's tag, else its own."""

    def __init__(self, fn_view, view):
        self._grad_fn = fn_view
        self._trace = view._trace if fn_view is None else None
