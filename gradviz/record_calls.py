"""How a recording sees what the program calls around its ops: tensor hooks, ``nn.Module`` calls
(the module path of each op), optimizer steps and ``zero_grad``, and backward passes
(``backward``, ``autograd.grad``) with every node's gradients (gradviz/torch_backward.py)."""

from __future__ import annotations

import inspect

from .record_active import ACTIVE
from .torch_backward import Walk, recorded_hook
from .torch_parts import to_numpy


class CallWatch:
    """The calls half of a recording session (mixed into ``recording._Session``)."""

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
                if getattr(ACTIVE, "session", None) is session:
                    session.rec.location = session.where()
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
        if (func == self.data_get or name == "detach") and not self.paused:
            self.asked = "data" if func == self.data_get else "detach"
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
