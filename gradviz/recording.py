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

import contextlib
import sys

from .errors import GradvizError
from .record_active import ACTIVE
from .record_block import BlockReading
from .record_calls import CallWatch
from .record_forward import ForwardCapture
from .torch_backward import Walk
from .torch_parts import FnView, TensorView


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
    torch = _torch()
    if getattr(ACTIVE, "session", None) is not None:
        raise GradvizError("gradviz.record() blocks cannot be nested")
    caller = sys._getframe(2)  # the frame of the with-statement (past contextmanager's own)
    result = Recording()
    session = _Session(torch, result, caller, max_ops)
    ACTIVE.session = session
    session.start()
    try:
        yield result
    finally:
        try:
            session.stop()
        finally:
            ACTIVE.session = None
            result.closed = True


class _Session(ForwardCapture, CallWatch, BlockReading):
    """One recording: the modes, hooks and line tracer, and the maps from torch objects to views.
    Its forward half is in gradviz/record_forward.py, the calls around the ops (modules, optimizers,
    hooks, backward passes) in record_calls.py, what it reads of the user's code in record_block.py."""

    def __init__(self, torch, result: Recording, caller, max_ops):
        from engine import trace as trace_mod

        self.torch = torch
        self.data_get = torch.Tensor.data.__get__  # what reading ``.data`` calls
        self.result = result
        self.rec = trace_mod.Recorder(max_ops=max_ops)
        self.result.trace = self.rec.trace
        self.caller = caller
        self.user_files = {caller.f_code.co_filename}
        # The recorder's own frames, which can stand between the program's call and ``from_user``
        # (its modes' methods live in this class's files; every other frame there is torch's).
        self.own_files = frozenset(sys.modules[cls.__module__].__file__ for cls in type(self).__mro__
                                   if cls.__module__.startswith(__package__ + "."))
        self.tensors: dict[int, TensorView] = {}  # id(tensor) -> view (the view holds the tensor)
        self.fns: dict[int, FnView] = {}  # id(Node) -> view (the view holds the Node)
        self.outputs: dict[int, TensorView] = {}  # id(Node) -> the view of the tensor it made
        self.pieces: dict[int, list] = {}  # id(Node) of unbind or split -> the view of each output
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


__all__ = ["Recording", "record"]
