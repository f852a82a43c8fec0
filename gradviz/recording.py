"""``with gradviz.record() as rec:``: real PyTorch's autograd graph and backward passes, recorded in
the user's own process into the trace gradviz plays (engine/trace.py).

How each part of the trace is read from torch:
- forward: a ``TorchDispatchMode`` sees every aten op with its arguments and its output (their
  values are copied then); once autograd has attached the output's ``grad_fn``, that Node is the
  op node, its inputs are its ``next_functions`` (a leaf's ``AccumulateGrad`` gives the leaf; a
  ``(None, 0)`` entry is the argument that needs no gradient: a tensor, or a Python number);
- names: a line tracer on the user's own code names the tensors it binds (the first name wins, as
  in the runner), and module hooks give each op the ``nn.Module`` path it ran in;
- a program's own ``torch.autograd.Function``: ``Function.apply`` is wrapped while the block runs;
  the node it attaches (``CubeBackward``) is recorded as the engine records one: its tensor
  arguments are its inputs (``next_functions`` says which need a gradient), what ``forward`` gave
  ``ctx.save_for_backward`` its saved tensors; the ops of ``forward`` itself (run without
  gradients) are not part of the graph;
- backward: ``Tensor.backward`` / ``torch.autograd.backward`` / ``torch.autograd.grad`` are seen
  through a ``TorchFunctionMode``; before torch's engine runs, every Node it can reach gets a pre-hook
  (the gradient it is about to use, and the order the engine runs them in) and a hook (the
  gradients it sends to each input); an ``AccumulateGrad`` Node's hooks give a leaf's ``.grad``
  before and after;
- tensor hooks: ``Tensor.register_hook`` (seen by the ``TorchFunctionMode``) registers the program's
  hook wrapped, so each call is a hook step of the pass running then (gradviz/torch_backward.py).
Everything is written through the recorder's named methods, as the engine writes a run. Nothing
here runs on a server: it is for the user's own code, in the user's own process.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import linecache
import os
import sys
import textwrap
import threading

import numpy as np

from .errors import GradvizError
from .torch_backward import Walk, recorded_hook
from .torch_parts import Constant, FnView, TensorView, function_entry, op_entry, param_value, to_numpy

_ACTIVE = threading.local()
_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_DATA_GET = None  # torch.Tensor.data.__get__, once torch is imported


def _torch():
    try:
        import torch
    except ImportError:
        raise GradvizError("gradviz.record() records real PyTorch, and torch is not installed here "
                           "(pip install torch)") from None
    return torch


class Recording:
    """What ``gradviz.record()`` recorded: the trace, the code of the block, and the tensors it
    bound. ``gradviz.show(rec)`` and ``gradviz.render(rec, "out.html")`` play it."""

    def __init__(self):
        self.trace = None
        self.source = "# recorded from PyTorch\n"
        self.variables: dict = {}  # name -> VariableOut data
        self.subjects: list = []  # the same tensors, as the "Why?" diagnosis reads them (app/worker/why)
        self.closed = False

    def answer_data(self) -> dict:
        """The recording as the answer of ``POST /api/run`` (without drawings)."""
        if not self.closed:
            raise GradvizError("show or render a recording after its with-block has ended")
        from app.worker import serialize
        from app.worker.why import diagnose_all

        out = serialize.serialize_trace(self.trace)
        out.update(variables=self.variables, stdout="", error=None, mode="program", free_names=[],
                   auto_backward=False, svg="", why=diagnose_all(self.trace, self.subjects))
        kept = {n["id"] for n in out["graph"]["nodes"]}
        for v in out["variables"].values():
            if v["node"] not in kept:
                v["node"] = None
        return out

    def __repr__(self) -> str:
        if self.trace is None:
            return "<gradviz Recording (recording)>"
        ops = sum(1 for n in self.trace.nodes if n.kind == "op")
        return f"<gradviz Recording: {ops} ops, {len(self.trace.passes)} backward passes>"


@contextlib.contextmanager
def record(max_ops: int | None = 20_000):
    """Record real PyTorch run inside the block (this thread, this process)."""
    global _DATA_GET
    torch = _torch()
    _DATA_GET = torch.Tensor.data.__get__
    if getattr(_ACTIVE, "session", None) is not None:
        raise GradvizError("gradviz.record() blocks cannot be nested")
    caller = sys._getframe(2)  # the frame of the with-statement (past contextmanager's own)
    result = Recording()
    session = _Session(torch, result, caller, max_ops)
    _ACTIVE.session = session
    session.start()
    try:
        yield result
    finally:
        try:
            session.stop()
        finally:
            _ACTIVE.session = None
            result.closed = True


class _Session:
    """One recording: the modes, hooks and line tracer, and the maps from torch objects to views."""

    def __init__(self, torch, result: Recording, caller, max_ops):
        from engine import trace as trace_mod

        self.torch = torch
        self.result = result
        self.rec = trace_mod.Recorder(max_ops=max_ops)
        self.result.trace = self.rec.trace
        self.caller = caller
        self.user_files = {caller.f_code.co_filename}
        self.tensors: dict[int, TensorView] = {}  # id(tensor) -> view (the view holds the tensor)
        self.fns: dict[int, FnView] = {}  # id(Node) -> view (the view holds the Node)
        self.outputs: dict[int, TensorView] = {}  # id(Node) -> the view of the tensor it made
        self.pending: list[tuple] = []  # dispatched ops whose grad_fn is not attached yet
        self.paused = 0
        self.asked = None  # the program called .detach() or read .data (the detach it dispatches is that)
        self.cut_sources: list[tuple] = []  # (cut index, view of the tensor cut off)
        self.handles: list = []
        self.walks: list[Walk] = []  # the backward passes running now (innermost last)
        self.modules: dict = {}  # nn.Module -> its label, for the module paths
        self.module_paths: list[dict] = []
        self.module_roots: list[bool] = []  # per open module call: is it an outermost one
        self.source_lines = self._block_source()
        self._prev_trace = None
        self._patched: list = []

    # ---- start and stop ----------------------------------------------------------------------------
    def start(self) -> None:
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        session = self

        class Forward(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return session.dispatched(func, args, kwargs or {})

        class Calls(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return session.called(func, args, kwargs or {})

        self.forward_mode = Forward()
        self.calls_mode = Calls()
        nn_mod = self.torch.nn.modules.module
        self.handles.append(nn_mod.register_module_forward_pre_hook(self.module_enter))
        self.handles.append(nn_mod.register_module_forward_hook(self.module_exit, always_call=True))
        from torch.optim import optimizer as optim
        self.handles.append(optim.register_optimizer_step_pre_hook(self.optimizer_before))
        self.handles.append(optim.register_optimizer_step_post_hook(self.optimizer_after))
        self._patch_zero_grad()
        self._patch_function_apply()
        self.calls_mode.__enter__()
        self.forward_mode.__enter__()
        self._prev_trace = sys.gettrace()
        sys.settrace(self.global_trace)
        self.caller.f_trace = self.line_trace
        self.caller.f_trace_lines = True

    def stop(self) -> None:
        sys.settrace(self._prev_trace)
        self.caller.f_trace = None
        self.forward_mode.__exit__(None, None, None)
        self.calls_mode.__exit__(None, None, None)
        for h in self.handles:
            h.remove()
        for owner, name, original in self._patched:
            setattr(owner, name, original)
        self.resolve()
        self.name_locals(self.caller)
        from engine.trace import name_cut

        for index, view in self.cut_sources:
            name_cut(self.rec, index, view._name)
        self.result.source = self.source_lines
        self.result.variables = self.variables()

    # ---- forward -----------------------------------------------------------------------------------
    def dispatched(self, func, args, kwargs):
        """An aten op: run it; remember it with copies of what it read and made."""
        if self.pending and args and _writes_first(func):
            # Autograd's kernel of an in-place op saves a clone of its target for backward: the
            # clone is not an op of the program.
            target = args[0]
            self.pending = [p for p in self.pending if not (p[0] is self.torch.ops.aten.clone.default
                                                            and p[1] and p[1][0] is target)]
        self.resolve()
        if self.paused:
            return func(*args, **kwargs)
        # What the op reads, before it runs (an in-place op changes its own input).
        snap = [(to_numpy(a), a._version) if isinstance(a, self.torch.Tensor) else a for a in args]
        out = func(*args, **kwargs)
        results = out if isinstance(out, (tuple, list)) else (out,)
        outs = [o for o in results if isinstance(o, self.torch.Tensor)]
        self.cuts(func, args, outs)
        if args and _writes_first(func) and isinstance(args[0], self.torch.Tensor):
            self.grad_changed(func, args[0], snap[0][0])
        if not outs or not any(o.dtype.is_floating_point for o in outs):
            return out
        self.pending.append((func, args, snap, kwargs, outs, [to_numpy(o) for o in outs], self.where(),
                             self.rec.module))
        return out

    def cuts(self, func, args, outs) -> None:
        """An op whose result carries no gradient back to an input that requires grad (a detach,
        ``.data``, ``.item()``, an op under no_grad, an integer or boolean result) is a cut."""
        asked, self.asked = self.asked, None
        if any(o.requires_grad for o in outs) or not self.from_user():
            return
        name = func.overloadpacket.__name__
        floating = outs and all(o.dtype.is_floating_point for o in outs)
        if name == "detach":  # (autograd's own detach, of what an op saves, is not the program's)
            if asked is None:
                return
            how = asked
        elif name == "_local_scalar_dense":
            how = "item"
        elif not self.torch.is_grad_enabled() and floating:
            how = "no_grad"
        elif outs and not floating:
            how = "argmax" if name in ("argmax", "argmin") else "compare" if name in _COMPARE else "integer"
        else:
            return
        from engine.trace import note_cut

        result = self.view_of(outs[0]) if outs else None
        self.rec.location = self.where()
        for a in args:
            if isinstance(a, self.torch.Tensor) and a.requires_grad:
                view = self.view_of(a)
                if a.grad_fn is not None and id(a.grad_fn) in self.outputs:
                    view = self.outputs[id(a.grad_fn)]
                index = note_cut(view, result, how, name, self.rec)
                if index is not None:
                    self.cut_sources.append((index, view))

    def grad_changed(self, func, grad, before) -> None:
        """An op changed a recorded leaf's ``.grad`` in place (``w.grad.zero_()``): an update of
        that gradient, as the engine records one."""
        for view in list(self.tensors.values()):
            t = view.tensor
            if t.is_leaf and t.grad is grad:
                nid = self.rec._node_if_any(view)
                if nid is not None:
                    self.rec.location = self.where()
                    gview = TensorView(grad)
                    op = func.overloadpacket.__name__.rstrip("_")
                    self.rec.updated(gview, (nid, True, gview), op, before)
                return

    def from_user(self) -> bool:
        """Whether the op running now was called by the block's code (through torch's own
        functions), not by gradviz reading a value or by torch's machinery on its own."""
        f = sys._getframe(2)
        while f is not None:
            if self.is_user(f.f_code):
                return True
            name = f.f_code.co_filename
            if f"{os.sep}torch{os.sep}" not in name and name != __file__:
                return False
            f = f.f_back
        return False

    def resolve(self) -> None:
        """Record the ops whose grad_fn autograd has attached since they ran."""
        pending, self.pending = self.pending, []
        for entry in pending:
            func, args, snap, kwargs, outs, values, where, module = entry
            for out, value in zip(outs, values):
                fn = out.grad_fn
                if fn is None or id(fn) in self.fns:
                    continue
                self.record_op(func, args, snap, kwargs, out, value, fn, where, module)
                break

    def record_op(self, func, args, snap, kwargs, out, value, fn, where, module) -> None:
        nexts = fn.next_functions
        schema = getattr(func, "_schema", None)
        names = [a.name for a in schema.arguments] if schema is not None else []
        candidates, params, data_args = [], {}, []
        for i, a in enumerate(args):
            name = names[i] if i < len(names) else f"arg{i}"
            if isinstance(a, self.torch.Tensor):
                if a.dtype.is_floating_point or a.dtype.is_complex:
                    candidates.append((a, snap[i]))
                else:
                    data_args.append((name, a, snap[i]))
            elif isinstance(a, (int, float)) and not isinstance(a, bool) and len(candidates) < len(nexts):
                candidates.append((a, None))
            else:
                params[name] = a
        op = op_entry(fn, kwargs, len(nexts))
        inputs = []
        for i, (nxt, _) in enumerate(nexts):
            given, value_in = candidates[i] if i < len(candidates) else (None, None)
            inputs.append(self.input_view(nxt, given, value_in, value.dtype))
        for given, _ in candidates[len(nexts):]:
            if not isinstance(given, self.torch.Tensor):
                params.setdefault("other", given)
        for name, _, arr in data_args:
            params[name] = arr[0]
        if getattr(op, "aux", 0):
            inputs += [TensorView(t, None, arr[0]) for _, t, arr in data_args[-op.aux:]]
        params.update({k: v for k, v in kwargs.items() if not isinstance(v, self.torch.Tensor)})
        params = {k: param_value(k, v) for k, v in params.items() if _plain(v)}
        self.record_node(fn, out, value, op, inputs, params, None, where, module)

    def record_node(self, fn, out, value, op, inputs, params, extras, where, module) -> None:
        """Write grad_fn ``fn`` (made ``out``, whose value was ``value``) as an op node of the
        trace, where the program ran it (``where``, inside the module call ``module``)."""
        fn_view = FnView(fn)
        self.fns[id(fn)] = fn_view
        out_view = self.view_of(out, fn_view, value)
        self.outputs[id(fn)] = out_view
        self.rec.location = where
        again = self.enter_module(module)
        try:
            self.rec.op_node(fn_view, op, inputs, out_view, params, extras)
        finally:
            if again:
                self.rec.pop_module()

    def input_view(self, nxt, given, value, dtype):
        """What fed one input of an op: the leaf of an AccumulateGrad, the output of another
        grad_fn, or (no gradient needed there) the tensor or number the op was given."""
        if nxt is not None and type(nxt).__name__ == "AccumulateGrad":
            return self.view_of(nxt.variable)
        if nxt is not None:
            fv = self.fns.get(id(nxt))
            if fv is None:  # made before the recording started: a leaf as far as this trace goes
                if not isinstance(given, self.torch.Tensor):
                    return Constant(float("nan"), dtype)
                return _with_value(self.view_of(given), value)
            out = self.outputs.get(id(nxt))
            return TensorView(out.tensor, fv, value[0] if value is not None else out.snapshot)
        if isinstance(given, self.torch.Tensor):
            return _with_value(self.view_of(given), value)
        if given is None:
            return Constant(float("nan"), dtype)
        return Constant(given, dtype)

    def view_of(self, tensor, fn_view=None, value=None) -> TensorView:
        """The view of a tensor (one per tensor object, kept while it is not changed in place)."""
        view = self.tensors.get(id(tensor))
        if view is None or view.tensor is not tensor or (fn_view is not None and view.fn_view is not fn_view):
            view = TensorView(tensor, fn_view, value)
            old = self.tensors.get(id(tensor))
            if old is not None and old.tensor is tensor:
                view._name = None
            self.tensors[id(tensor)] = view
        elif value is not None and view.snapshot is None:
            view.snapshot = value
        return view

    # ---- a program's own autograd.Function ---------------------------------------------------------
    def _patch_function_apply(self) -> None:
        """``MyFn.apply(...)`` is seen here (no mode sees it): its node is recorded once it exists."""
        session = self
        owner = self.torch.autograd.Function
        original = owner.__dict__["apply"]
        run = original.__func__

        def apply(cls, *args, **kwargs):
            if getattr(_ACTIVE, "session", None) is not session or session.paused:
                return run(cls, *args, **kwargs)
            return session.function_applied(cls, run, args, kwargs)

        owner.apply = classmethod(apply)
        self._patched.append((owner, "apply", original))

    def function_applied(self, cls, run, args, kwargs):
        """Run ``cls.apply``; record the node it attached to its output, as the engine does."""
        self.resolve()
        where, module = self.where(), self.rec.module
        tensors = [(a, (to_numpy(a), a._version)) for a in args if isinstance(a, self.torch.Tensor)]
        # forward runs without gradients: its ops are not nodes of the graph; nor are the aliases
        # torch makes of a saved output while its saved tensors are read here
        self.paused += 1
        try:
            result = run(cls, *args, **kwargs)
            # the output the node is shown with: the first one it made (all share one grad_fn)
            out = next((o for o in (result if isinstance(result, (tuple, list)) else (result,))
                        if isinstance(o, self.torch.Tensor) and o.grad_fn is not None), None)
            fn = out.grad_fn if out is not None else None
            if fn is None or id(fn) in self.fns or not hasattr(fn, "saved_tensors"):
                return result
            extras = {f"saved{i}": to_numpy(t) for i, t in enumerate(fn.saved_tensors)
                      if isinstance(t, self.torch.Tensor)}
            value = to_numpy(out)
        finally:
            self.paused -= 1
        inputs = [self.input_view(nxt, given, snap, value.dtype)
                  for (nxt, _), (given, snap) in zip(fn.next_functions, tensors)]
        self.record_node(fn, out, value, function_entry(cls.__name__), inputs, {"function": cls.__name__},
                         extras, where, module)
        return result

    def enter_module(self, module) -> bool:
        """Record what follows in the module call an op ran in, back then; True when that needed a
        ``push_module`` (undo it with ``pop_module``). Nearly always that call is still open (ops are
        recorded at the next op or at the call's end) and the op joins its scope; an op outside
        every module call stays outside."""
        if module is None or module == self.rec.module:
            return False
        self.rec.push_module(module)
        return True

    # ---- tensor hooks ------------------------------------------------------------------------------
    def register_hook(self, func, args, kwargs):
        """``tensor.register_hook(hook)``: register ``hook`` wrapped, so that each call of it is a
        hook step of the backward pass running then (on the tensor's node: its grad_fn's, or the
        leaf's), with where the program registered it."""
        bound = _bind(func, args, kwargs)
        tensor, hook = bound.get("self"), bound.get("hook")
        if not isinstance(tensor, self.torch.Tensor) or not callable(hook):
            return func(*args, **kwargs)  # torch's own error
        self.resolve()
        fn = tensor.grad_fn
        target = self.fns.get(id(fn)) if fn is not None else self.view_of(tensor)
        return func(tensor, recorded_hook(self, hook, target, self.where()))

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

    # ---- modules ------------------------------------------------------------------------------------
    def module_enter(self, module, args):
        """An nn.Module call starts: the ops inside run in its path ("fc1"), as in the engine."""
        if self.paused:
            return
        self.resolve()
        paths = self.module_paths[-1] if self.module_paths else None
        path = paths.get(module) if paths is not None else None
        root = path is None
        if root:
            label = self.modules.get(module) or type(module).__name__
            paths = {m: p for p, m in module.named_modules()}
            paths[module] = label
            path = label
            for name, p in module.named_parameters():
                self.rec.name_tensor(self.view_of(p), name if "." in name else f"{label}.{name}", bound=False)
            self.module_paths.append(paths)
        self.module_roots.append(root)
        self.rec.push_module(path)

    def module_exit(self, module, args, output):
        if self.paused or not self.module_roots:
            return
        self.resolve()
        self.rec.pop_module()
        if self.module_roots.pop():
            self.module_paths.pop()

    # ---- optimizers ---------------------------------------------------------------------------------
    def optimizer_before(self, optimizer, args, kwargs):
        self.resolve()
        self._before_step = [(p, to_numpy(p), None if p.grad is None else to_numpy(p.grad))
                             for group in optimizer.param_groups for p in group["params"]]

    def optimizer_after(self, optimizer, args, kwargs):
        before = [(self.view_of(p), value, grad) for p, value, grad in getattr(self, "_before_step", [])]
        self._before_step = []
        self.rec.optimizer_step(type(optimizer).__name__, _rule(optimizer), before)

    def _patch_zero_grad(self) -> None:
        """``zero_grad()`` of optimizers and modules is an event of the trace (torch has no hook)."""
        session = self
        for owner in (self.torch.optim.Optimizer, self.torch.nn.Module):
            original = owner.__dict__["zero_grad"]

            def zero_grad(obj, *a, _original=original, **k):
                out = _original(obj, *a, **k)
                if getattr(_ACTIVE, "session", None) is session:
                    session.rec.zero_grad()
                return out

            owner.zero_grad = zero_grad
            self._patched.append((owner, "zero_grad", original))

    # ---- backward -----------------------------------------------------------------------------------
    def called(self, func, args, kwargs):
        name = getattr(func, "__name__", "")
        module = getattr(func, "__module__", "") or ""
        if name == "backward" and (module.startswith("torch._tensor") or module.startswith("torch.autograd")):
            return self.backward(func, args, kwargs, "backward")
        if name == "grad" and module.startswith("torch.autograd"):
            return self.backward(func, args, kwargs, "autograd.grad")
        if name == "register_hook" and module.startswith("torch._tensor") and not self.paused:
            return self.register_hook(func, args, kwargs)
        if (func == _DATA_GET or name == "detach") and not self.paused:
            self.asked = "data" if func == _DATA_GET else "detach"
        return func(*args, **kwargs)

    def backward(self, func, args, kwargs, api: str):
        self.resolve()
        bound = _bind(func, args, kwargs)
        roots = _tensor_list(bound.get("self", bound.get("tensors", bound.get("outputs"))), self.torch)
        seeds = bound.get("gradient", bound.get("grad_tensors", bound.get("grad_outputs")))
        seeds = _tensor_list(seeds, self.torch) if seeds is not None else [None] * len(roots)
        create_graph = bool(bound.get("create_graph", False))
        retain = bound.get("retain_graph")
        retain_graph = create_graph if retain is None else bool(retain)
        if not roots or roots[0].grad_fn is None and not roots[0].requires_grad:
            return func(*args, **kwargs)
        seed0 = seeds[0] if seeds and seeds[0] is not None else self.torch.ones_like(roots[0])
        root_view = self.view_of(roots[0])
        if roots[0].grad_fn is not None and id(roots[0].grad_fn) in self.fns:
            root_view = self.outputs[id(roots[0].grad_fn)]
        where = self.where()
        self.rec.location = where
        pass_rec = self.rec.backward_pass(root_view, api, retain_graph, create_graph, to_numpy(seed0))
        walk = Walk(self, pass_rec, accumulate=api == "backward")
        walk.hook(roots)
        if not create_graph:
            self.paused += 1
        self.walks.append(walk)
        try:
            return func(*args, **kwargs)
        finally:
            self.walks.pop()
            if not create_graph:
                self.paused -= 1
            walk.unhook()
            self.rec.pass_done()

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


def _writes_first(func) -> bool:
    """Does the aten op write its first argument (``add_``, ``clamp_``)?"""
    schema = getattr(func, "_schema", None)
    if schema is None or not schema.arguments:
        return False
    alias = schema.arguments[0].alias_info
    return alias is not None and alias.is_write


class _Probe:
    """What ``trace.node_id`` reads of a tensor: its grad_fn's tag, else its own."""

    def __init__(self, fn_view, view):
        self._grad_fn = fn_view
        self._trace = view._trace if fn_view is None else None


def _with_value(view: TensorView, value) -> TensorView:
    """``view``, holding ``value`` (an op's snapshot: array and version) as what the op read."""
    if value is not None:
        view.keep(*value)
    return view


def _plain(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str, np.ndarray)) or (
        isinstance(v, (list, tuple)) and all(_plain(x) for x in v))


def _bind(func, args, kwargs) -> dict:
    try:
        return dict(inspect.signature(func).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return {"self": args[0]} if args else {}


def _tensor_list(value, torch) -> list:
    if value is None:
        return []
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor) or v is None]
    return []


def _rule(optimizer) -> str:
    """The update rule as the engine's optimizer of the same name writes it."""
    from engine import optim

    cls = getattr(optim, type(optimizer).__name__, None)
    if cls is not None and optimizer.param_groups:
        try:
            return cls._rule(None, {**optimizer.defaults, **optimizer.param_groups[0]})
        except (KeyError, TypeError, ValueError, AttributeError):
            pass
    return type(optimizer).__name__


__all__ = ["Recording", "record"]
