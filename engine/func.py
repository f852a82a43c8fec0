"""``torch.func``: function transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``,
``hessian``), built on the engine's two modes: the backward walk for the reverse ones and forward
mode's dual tensors (``engine.tangents``) for ``jvp`` and ``jacfwd``.

A transform's inner passes keep their graphs (``create_graph=True``) so transforms compose
(``grad(grad(f))``); only the outermost one hands back tensors without history, as PyTorch does.
"""

from __future__ import annotations

from . import arguments as A
from . import generator as G
from . import grad_mode
from . import tangents as _tangents
from .autograd import forward_ad as _fwd
from .autograd import grad as _autograd_grad
from .errors import not_supported
from .tensor import Tensor

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]

_DEPTH = [0]  # reverse transforms running now: the outermost detaches what it returns


def _spec(n: int) -> str:
    """How PyTorch's pytree prints a flat tuple of ``n`` tensors."""
    return "TreeSpec(tuple, None, [" + ",\n  ".join(["*"] * n) + "])"


def _callable(func, fn: str) -> None:
    if not callable(func):
        raise TypeError(f"{fn}: Expected f to be a function that has non-tuple, non-list, non-dict "
                        f"arguments, got {A.type_name(func)}")


def _argnums(argnums, n: int, fn: str) -> tuple[bool, tuple[int, ...]]:
    if type(argnums) is int:
        nums, many = (argnums,), False
    elif type(argnums) is tuple and argnums and all(type(a) is int for a in argnums):
        nums, many = argnums, True
    else:
        raise RuntimeError(f"{fn}: argnums must be int or Tuple[int, ...], got: {A.type_name(argnums)}")
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return many, tuple(a % n for a in nums)


def _differentiable(x: Tensor) -> Tensor:
    """``x`` as an input to differentiate with respect to: itself inside an outer transform (so
    the outer one sees through), else a fresh leaf sharing its data and keeping its tangent."""
    if x.requires_grad:
        return x
    from .ops.shape import view

    leaf = view(x, tuple(x._data.shape))  # a view carries a forward-mode tangent along
    leaf._requires_grad = x.dtype.is_floating_point
    leaf._base = None
    return leaf


def _plain(t, outermost: bool):
    """What a transform hands back: without history when it is the outermost one."""
    if not isinstance(t, Tensor) or not outermost:
        return t
    out = Tensor._make(t._data)
    tangent = _tangents.tangent_of(t)
    if tangent is not None:
        _tangents.ACTIVE.set(out, tangent)
    return out


# ---- reverse mode -----------------------------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux: bool = False):
    """A function returning ``(gradient of func w.r.t. the argnums inputs, func's value)``."""
    _callable(func, "grad_and_value(f)")
    if A.flag(has_aux, "grad_and_value", "has_aux", strict=False):
        raise not_supported("torch.func.grad(has_aux=True)")

    def wrapper(*args, **kwargs):
        many, nums = _argnums(argnums, len(args), "grad_and_value")
        args = list(args)
        # an input that requires grad already: the result stays in the program's graph, as in PyTorch
        keeps_graph = any(isinstance(args[i], Tensor) and args[i].requires_grad for i in nums)
        for i in nums:
            A.tensor(args[i], "grad_and_value", f"argument {i}")
            args[i] = _differentiable(args[i])
        _DEPTH[0] += 1
        try:
            with grad_mode.enable_grad():
                out = func(*args, **kwargs)
                if not isinstance(out, Tensor):
                    raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                       f"{A.type_name(out)}")
                if out._data.size != 1 or out.ndim:
                    raise RuntimeError(
                        f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                        f"with {out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
                inputs = [args[i] for i in nums]
                if out.requires_grad:
                    grads = _autograd_grad(out, inputs, create_graph=True, allow_unused=True)
                else:
                    grads = (None,) * len(inputs)
        finally:
            _DEPTH[0] -= 1
        outermost = _DEPTH[0] == 0 and not keeps_graph
        from .factory import zeros_like

        grads = tuple(_plain(zeros_like(x) if g is None else g, outermost) for g, x in zip(grads, inputs))
        return (grads if many else grads[0]), _plain(out, outermost)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """A function returning the gradient of the scalar ``func`` w.r.t. its ``argnums`` inputs."""
    _callable(func, "grad(f)")
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        return inner(*args, **kwargs)[0]

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangent)`` gives one vector-Jacobian product per primal."""
    _callable(func, "vjp(f, *primals)")
    if A.flag(has_aux, "vjp", "has_aux", strict=False):
        raise not_supported("torch.func.vjp(has_aux=True)")
    inputs = [_differentiable(A.tensor(p, "vjp", "primals")) for p in primals]
    _DEPTH[0] += 1
    try:
        with grad_mode.enable_grad():
            out = func(*inputs)
    finally:
        _DEPTH[0] -= 1
    outermost = _DEPTH[0] == 0
    outputs = out if type(out) in (tuple, list) else (out,)
    for o in outputs:
        A.tensor(o, "vjp", "output")

    def vjp_fn(*cotangents):
        if type(out) in (tuple, list):
            cotangents = cotangents[0] if len(cotangents) == 1 and type(cotangents[0]) in (tuple, list) \
                else cotangents
        if len(cotangents) != len(outputs):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure "
                               f"of outputs to the function. cotangents: {len(cotangents)} tensors, "
                               f"primal output: {len(outputs)} tensors")
        from .factory import zeros_like

        live = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
        if live:
            grads = _autograd_grad([o for o, _ in live], inputs, [c for _, c in live], retain_graph=True,
                                   create_graph=not outermost, allow_unused=True)
        else:
            grads = (None,) * len(inputs)
        return tuple(_plain(zeros_like(x) if g is None else g, outermost) for g, x in zip(grads, inputs))

    shown = tuple(_plain(o, outermost) for o in outputs)
    return (shown if type(out) in (tuple, list) else shown[0]), vjp_fn


def jacrev(func, argnums=0, has_aux: bool = False):
    """A function returning the Jacobian of ``func`` (by reverse mode, one pass per output element)."""
    _callable(func, "jacrev(f)")
    if A.flag(has_aux, "jacrev", "has_aux", strict=False):
        raise not_supported("torch.func.jacrev(has_aux=True)")

    def wrapper(*args):
        from .autograd.functional import jacobian

        many, nums = _argnums(argnums, len(args), "jacrev")

        def of_chosen(*chosen):
            full = list(args)
            for i, c in zip(nums, chosen):
                full[i] = c
            return func(*full)

        chosen = tuple(args[i] for i in nums)
        inner = _DEPTH[0] > 0  # inside another transform: keep the graph, so the outer one sees through
        _DEPTH[0] += 1
        try:
            return jacobian(of_chosen, chosen if many else chosen[0], create_graph=inner)
        finally:
            _DEPTH[0] -= 1

    return wrapper


# ---- forward mode ---------------------------------------------------------------------------------------
def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J·tangents)`` in one forward pass with dual tensors."""
    _callable(func, "jvp(f, primals, tangents)")
    if type(primals) is not tuple:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    if type(tangents) is not tuple:
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must "
                           f"be. Got primals with structure {_spec(len(primals))} and tangents with "
                           f"structure {_spec(len(tangents))}")
    if A.flag(has_aux, "jvp", "has_aux", strict=False):
        raise not_supported("torch.func.jvp(has_aux=True)")
    opened = _tangents.ACTIVE is None
    if not opened:
        raise not_supported("torch.func.jvp inside another forward-mode level")
    _fwd.enter_dual_level()
    try:
        duals = [_fwd.make_dual(A.tensor(p, "jvp", "primals"), A.tensor(t, "jvp", "tangents"))
                 for p, t in zip(primals, tangents)]
        out = func(*duals)
        outputs = out if type(out) in (tuple, list) else (out,)
        from .factory import zeros_like

        pairs = []
        for o in outputs:
            o = A.tensor(o, "jvp", "output")
            unpacked = _fwd.unpack_dual(o)
            primal = Tensor._make(o._data) if _DEPTH[0] == 0 else unpacked.primal
            pairs.append((primal, zeros_like(o) if unpacked.tangent is None else unpacked.tangent))
    finally:
        _fwd.exit_dual_level()
    if type(out) in (tuple, list):
        return tuple(p for p, _ in pairs), tuple(t for _, t in pairs)
    return pairs[0]


def jacfwd(func, argnums=0, has_aux: bool = False):
    """A function returning the Jacobian of ``func`` by forward mode: one pass per input element,
    each pushing the tangent of one input direction (a column of the Jacobian)."""
    _callable(func, "jacfwd(f)")
    if A.flag(has_aux, "jacfwd", "has_aux", strict=False):
        raise not_supported("torch.func.jacfwd(has_aux=True)")

    def wrapper(*args):
        from .factory import zeros
        from .ops.combine import stack
        from .ops.shape import reshape

        many, nums = _argnums(argnums, len(args), "jacfwd")
        blocks = []
        for i in nums:
            x = A.tensor(args[i], "jacfwd", f"argument {i}")
            columns = []
            for k in range(x._data.size):
                direction = zeros(x._data.size, dtype=x.dtype)
                direction._data[k] = 1
                tangents = tuple(reshape(direction, tuple(x._data.shape)) if j == i else zeros(
                    tuple(a._data.shape), dtype=a.dtype) for j, a in enumerate(args))
                _, column = jvp(func, tuple(args), tangents)
                columns.append(reshape(column, (-1,)))
            out_shape = tuple(columns[0].shape) if columns else ()
            jac = stack(columns, dim=-1) if columns else zeros(out_shape + (0,))
            out = func(*args)
            blocks.append(reshape(jac, tuple(out._data.shape) + tuple(x._data.shape)))
        return tuple(blocks) if many else blocks[0]

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar ``func``: the Jacobian of its gradient (reverse over reverse here)."""
    _callable(func, "hessian(f)")
    return jacrev(jacrev(func, argnums), argnums)


# ---- vmap ----------------------------------------------------------------------------------------------
def _class(value) -> str:
    return f"<class '{A.type_name(value)}'>"


def _func_name(func) -> str:
    return getattr(func, "__name__", None) or A.type_name(func)


def _in_dims(in_dims, args: tuple, where: str) -> list:
    """One mapped dim (or None) per positional argument, checked as torch checks them."""
    if type(in_dims) is int:
        dims = [in_dims] * len(args)
    elif type(in_dims) is tuple and all(d is None or type(d) is int for d in in_dims):
        if len(in_dims) != len(args):
            raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims "
                             f"has structure {_spec(len(in_dims))} but inputs has structure "
                             f"{_spec(len(args))}.")
        dims = list(in_dims)
    else:
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching "
                         f"the structure of inputs, got: {_class(in_dims)}.")
    for i, (d, a) in enumerate(zip(dims, args)):
        if d is None:
            continue
        if not isinstance(a, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type {_class(a)}. "
                             "We cannot vmap over non-Tensor arguments, please use None as the respective "
                             "in_dim")
        n = a.ndim
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                             f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
        dims[i] = d % n
    if all(d is None for d in dims):
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    return dims


def _slice(a, d, b):
    """Argument ``a`` for the call on slice ``b``: its index ``b`` along ``d`` (None: ``a`` whole)."""
    return a if d is None else a[(slice(None),) * d + (b,)]


def _outputs(out, name: str) -> tuple:
    outs = out if type(out) is tuple else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{_class(o)}. Did you mean to set out_dims= to None for output?")
    return outs


def _empty_result(func, args: tuple, dims: list, out_dims):
    """vmap over an empty dimension: one call on zeros slices tells the shape of the empty result."""
    from .factory import zeros

    out = func(*(a if d is None else zeros(tuple(s for k, s in enumerate(a.shape) if k != d), dtype=a.dtype)
                 for a, d in zip(args, dims)))
    outs = _outputs(out, _func_name(func))
    o_dims = out_dims if type(out_dims) is tuple else (out_dims,) * len(outs)
    empty = []
    for o, d in zip(outs, o_dims):
        shape = list(o.shape)
        shape.insert(d % (len(shape) + 1), 0)
        empty.append(zeros(tuple(shape), dtype=o.dtype))
    return tuple(empty) if type(out) is tuple else empty[0]


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over a dimension of its tensor arguments (``in_dims``: an int for every
    argument, or one int or None per argument, None passing the argument whole to every call);
    the results stacked along ``out_dims``. gradviz runs ``func`` once per slice, through the
    program's runner and its limits, and stacks the results, so the values and gradients are
    torch's but a graph drawn through it shows the slices and the stack, not torch's batched ops.
    With ``randomness="error"`` (the default) a random op inside is refused with torch's error."""
    _callable(func, "vmap(f)")
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")
    refuse = randomness == "error"

    def wrapper(*args):
        from .ops.combine import stack

        name = _func_name(func)
        dims = _in_dims(in_dims, args, f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)")
        sizes = [args[i].shape[d] for i, d in enumerate(dims) if d is not None]
        if len(set(sizes)) > 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got "
                             f"sizes {sizes} for the mapped dimension")
        G.REFUSING[0] += refuse
        try:
            if sizes[0] == 0:
                return _empty_result(func, args, dims, out_dims)
            results = [func(*(_slice(a, d, b) for a, d in zip(args, dims))) for b in range(sizes[0])]
        finally:
            G.REFUSING[0] -= refuse
        many = type(results[0]) is tuple
        columns = list(zip(*(_outputs(r, name) for r in results)))
        o_dims = out_dims if type(out_dims) is tuple else (out_dims,) * len(columns)
        stacked = [stack(list(column), dim=d) for column, d in zip(columns, o_dims)]
        return tuple(stacked) if many else stacked[0]

    return wrapper
