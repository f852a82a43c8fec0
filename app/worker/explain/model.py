"""The explanation model of a run: what the page says about each node and each backward step,
built from the op table's explanations (engine/ops/explain.py) and the trace's numbers.

For an op node: what it computes in the student's names (``y = u · c``), in words in both
languages, and each input's rule (``∂y/∂u = c``). For a backward step: for each input, the saved
values under the rule's names, every worked step (``G ⊙ c``, ``G · Bᵀ`` with shapes, the sum over
broadcast dims, the ``÷ n`` of a mean) and whether those numbers give the gradient the engine sent.
"""

from __future__ import annotations

import re

import numpy as np

from engine.ops.table import OPS
from engine.trace import OpNode, Trace

from .. import values as V
from .algebra import Ctx, Term, Walk
from .names import is_constant
from .text import Text, fmt_num, key_text, shape_text, sup

RTOL = 1e-4  # the worked numbers (float64) against the gradient sent (the op's dtype)
MAX_WORKED_ELEMENTS = 4096  # larger tensors get their rules, not their arithmetic
AUX_NAMES = ("cond",)  # the data-only inputs (where's condition)


def saved_arrays(node: OpNode) -> dict:
    return {s.name: s.value for s in node.saved}


def in_syms(trace: Trace, node: OpNode, syms: dict) -> list[str]:
    names = [_edge_sym(trace, trace.edges[e], syms) for e in node.inputs]
    return names + list(AUX_NAMES[:OPS[node.op].aux])


def _edge_sym(trace: Trace, edge, syms: dict) -> str:
    """The name of what ``edge`` carries: its source's, or for an output of a multi-output node (``a, b,
    c = p``) that output's own name (``c``), else the whole's name and the output's place (``u[2]``)."""
    source = trace.nodes[edge.source]
    pieces = getattr(source, "pieces", None)
    if not pieces:
        return syms.get(edge.source, "?")
    named = pieces[edge.output] if edge.output < len(pieces) else None
    if named:
        return named
    whole = syms.get(edge.source, "?")
    return f"{whole}[{edge.output}]" if source.params.get("sizes") is None and source.params.get("dim") == 0 \
        else f"{whole}⟨{edge.output}⟩"


def context(trace: Trace, node: OpNode, syms: dict, g, index: int = 0) -> Ctx:
    op = OPS[node.op]
    return Ctx(op=op, params=node.params, saved=saved_arrays(node), g=g, in_syms=in_syms(trace, node, syms),
               out_sym=syms.get(node.id, "y"), in_shapes=[trace.edges[e].shape for e in node.inputs],
               out_shape=tuple(node.shape), index=index, dtype=node.dtype,
               constant=constant_inputs(trace, node))


def constant_inputs(trace: Trace, node: OpNode) -> frozenset[int]:
    """The inputs of ``node`` that are Python numbers the program wrote (``4`` in ``4 * x``):
    constants of its formula, never inputs with a derivative of their own."""
    out = []
    for i, e in enumerate(node.inputs):
        src = trace.nodes[trace.edges[e].source]
        if src.kind == "leaf" and is_constant(src):
            out.append(i)
    return frozenset(out)


def display_names(node: OpNode, names: list[str]) -> list[str]:
    """The inputs' names in the order the program wrote them (``4 · x`` for ``4 * x``)."""
    if getattr(node, "swapped", False) and len(names) >= 2:
        return [names[1], names[0], *names[2:]]
    return names


# ---- what a node computes ---------------------------------------------------------------------------
_SLOT = re.compile(r"(\^?)\{(\*|\w+)\}")


def forward_text(template: str, names: list[str], params: dict, op: str) -> str:
    """An op's forward template with the inputs' names and the arguments' values filled in."""
    def fill(m):
        power, key = m.group(1), m.group(2)
        if key == "*":
            return ", ".join(names)
        if key.isdigit():
            text = names[int(key)] if int(key) < len(names) else "?"
        elif key == "key":
            text = key_text(params, op)
        else:
            text = param_text(params.get(key), key)
        if power:
            small = sup(params.get(key)) if not key.isdigit() else None
            return small if small else "^" + (text if re.fullmatch(r"[\w.]+", text) else f"({text})")
        return text

    return _SLOT.sub(fill, template)


def param_text(v, name: str = "") -> str:
    if v is None or isinstance(v, (bool, int, float, np.number)):
        return fmt_num(v.item() if isinstance(v, np.number) else v)
    if isinstance(v, np.dtype) or isinstance(v, type):
        return "torch." + V.dtype_name(np.dtype(v))
    if isinstance(v, (list, tuple)):
        if np.asarray(v, dtype=object).size > 6:
            return name
        return "(" + ", ".join(param_text(x) for x in v) + ("," if len(v) == 1 else "") + ")" \
            if isinstance(v, tuple) else "[" + ", ".join(param_text(x) for x in v) + "]"
    return str(v)


def node_model(trace: Trace, node: OpNode, syms: dict, rules: list | None, root: str = "L") -> dict:
    """What the page says about an op node: ``{expr, about, rules, local}``."""
    op = OPS[node.op]
    spec = op.explain
    names = display_names(node, in_syms(trace, node, syms))
    return {
        "expr": forward_text(spec.reversed_forward if spec.reversed_forward and node.params.get("reverse")
                             else spec.forward, names, node.params, node.op),
        "about": {"en": op.description, "zh": spec.about_zh},
        "rules": rules if rules is not None else _dry_rules(trace, node, syms, root),
        "local": spec.elementwise,
    }


def _dry_rules(trace: Trace, node: OpNode, syms: dict, root: str = "L") -> list:
    """The rule texts of a node no backward step visited (worked on a zero gradient).

    A rule's text depends on the op, its arguments and shapes, and the names, never on the numbers:
    it is worked out once per op, arguments and shapes, with stand-ins for the names, which are
    then put in (a graph of thousands of ops the program never differentiated costs little)."""
    if node.value.size > MAX_WORKED_ELEMENTS:
        return [None] * len(node.inputs)
    names = in_syms(trace, node, syms)
    stand_ins = {f"\ue000{k}\ue001": name for k, name in
                 enumerate([*names, syms.get(node.id, "y"), root])}
    key = _rules_key(trace, node)
    rules = _DRY.get(key) if key is not None else None
    if rules is None:
        marks = list(stand_ins)
        marked = {}
        for i, e in enumerate(node.inputs):  # an input used twice (x * x) keeps its first mark
            marked.setdefault(trace.edges[e].source, marks[i])
        marked[node.id] = marks[-2]
        g = np.zeros(node.shape)
        rules = []
        constant = constant_inputs(trace, node)
        for i in range(len(node.inputs)):
            if i in constant:  # a number the program wrote has no derivative of its own
                rules.append(None)
                continue
            try:
                rules.append(_input(trace, node, marked, g, i, marks[-1])[0]["rule"])
            except Exception:  # noqa: BLE001 - a rule that cannot be written for this node shows none
                rules.append(None)
        if key is not None:
            if len(_DRY) > 4096:
                _DRY.clear()
            _DRY[key] = rules
    return [_put_names(r, stand_ins) for r in rules]


_DRY: dict = {}  # (op, arguments, shapes) -> its rules with stand-ins for the names


def _rules_key(trace: Trace, node: OpNode):
    """What a node's rule texts depend on besides the names (None: too large to be a key)."""
    params = repr(sorted(node.params.items(), key=lambda kv: kv[0]))
    if len(params) > 2000:
        return None
    shapes = tuple(tuple(trace.edges[e].shape) for e in node.inputs)
    sources = [trace.edges[e].source for e in node.inputs]
    if any(getattr(trace.nodes[s], "pieces", None) for s in sources):
        return None  # an output of a multi-output node is named by its own name, not kept with stand-ins
    same = tuple(sources.index(src) for src in sources)  # which inputs are one tensor (x * x)
    numbers = tuple((i, trace.nodes[sources[i]].name) for i in sorted(constant_inputs(trace, node)))
    return node.op, params, shapes, same, numbers, tuple(node.shape), node.dtype


def _put_names(rule, stand_ins: dict):
    if rule is None:
        return None
    if isinstance(rule, dict):
        return {lang: _put_names(text, stand_ins) for lang, text in rule.items()}
    for mark, name in stand_ins.items():
        rule = rule.replace(mark, name)
    return rule


# ---- one backward step ----------------------------------------------------------------------------
def step_model(trace: Trace, node: OpNode, step, syms: dict, root: str, worked: bool) -> dict:
    """Per input: the rule, the saved values, the worked steps and whether they give what was sent."""
    big = node.value.size > MAX_WORKED_ELEMENTS or any(s.value.size > MAX_WORKED_ELEMENTS for s in node.saved)

    def work(i, eid, grad):
        return _input(trace, node, syms, step.upstream, i, root, grad if worked and not big else None)[0]

    inputs = per_sent_edge(step, node.inputs, work, lambda i, eid: _edge_sym(trace, trace.edges[eid], syms))
    return {"root": root, "inputs": inputs}


def per_sent_edge(step, edges: list, work, name_of) -> list:
    """Per edge of ``edges``: None where ``step`` sent nothing along it, else ``work(i, edge id,
    gradient sent)``; an explanation that fails says only the input's name (``name_of(i, edge id)``)
    and that it is not ok: an explanation must never cost the answer."""
    sent = {f.edge: f.grad for f in step.sent}
    inputs = []
    for i, eid in enumerate(edges):
        grad = sent.get(eid)
        if grad is None:
            inputs.append(None)
            continue
        try:
            inputs.append(work(i, eid, grad))
        except Exception:  # noqa: BLE001 - tests keep this rare
            name = name_of(i, eid)
            inputs.append({"edge": eid, "name": name, "rule": None, "broadcast": None, "ok": False})
    return inputs


def _input(trace: Trace, node: OpNode, syms: dict, g, i: int, root: str, sent=None) -> tuple[dict, Term]:
    """The explanation of input ``i``: the rule always; the numbers when ``sent`` is given."""
    spec = OPS[node.op].explain
    ctx = context(trace, node, syms, g, i)
    walk = Walk(ctx)
    rule = spec.rules()[0 if OPS[node.op].variadic else i]
    term = walk.term(rule)
    name, out = ctx.in_syms[i], ctx.out_sym
    if spec.elementwise:
        rule_text = Text.join(f"∂{out}/∂{name} = ", term.text)
        result = _times_upstream(walk, term)
    else:
        rule_text = Text.join(f"∂{root}/∂{name} = ", term.text)
        result = term
    edge = trace.edges[node.inputs[i]]
    broadcast = None
    if np.shape(result.value) != tuple(edge.shape):
        broadcast = _sum_back(walk, result, name, tuple(edge.shape))
        result = broadcast[1]
        broadcast = broadcast[0]
    work = {"edge": edge.id, "name": name, "rule": rule_text.data(), "broadcast": broadcast, "ok": None}
    if sent is not None:
        ok = _matches(result.value, sent)
        work.update(values=walk.values, steps=walk.worked, result=result.ref, ok=ok)
    return work, result


def _times_upstream(walk: Walk, local: Term) -> Term:
    """G ⊙ local, the elementwise chain rule (G itself when the local derivative is 1)."""
    g = walk.term_g()
    if local.const and local.value == 1:
        return g
    if local.const and local.value == -1:
        return walk._record("neg", [g], Text.same("−G"), 3)
    dot = "·" if local.const or np.ndim(local.value) == 0 or np.ndim(g.value) == 0 else " ⊙ "
    inner = local.text if local.prec >= 2 and local.prec != 3 else Text.join("(", local.text, ")")
    return walk._record("mul", [g, local], Text.join("G", dot, inner), 2)


def _sum_back(walk: Walk, result: Term, name: str, shape: tuple) -> tuple[dict, Term]:
    """The sum over the dims broadcasting added or stretched, with the sentence that says so."""
    big = tuple(np.shape(result.value))
    lead = len(big) - len(shape)
    dims = list(range(lead)) + [i + lead for i, n in enumerate(shape) if n == 1 and big[i + lead] != 1]
    frm, to = shape_text(big), shape_text(shape)
    which_en = ("dim " if len(dims) == 1 else "dims ") + ", ".join(map(str, dims))
    which_zh = "第 " + "、".join(map(str, dims)) + " 维"
    inner = result.text if result.prec > 0 else Text.join("(", result.text, ")")
    text = Text(f"{inner.en} summed over {which_en}: {frm} → {to}",
                f"{inner.zh} 在{which_zh}上求和：{frm} → {to}")
    term = walk._record("sum_to", [result], text, 0, {"shape": list(shape)})
    sentence = Text(f"{name} was broadcast from {to} to {frm} in the forward pass, so its gradient is "
                    f"summed over {which_en}: {frm} → {to}.",
                    f"前向传播时 {name} 从 {to} 广播到 {frm}，所以它的梯度在{which_zh}上求和：{frm} → {to}。")
    return {"from": list(big), "to": list(shape), "dims": dims, "says": sentence.data()}, term


def _matches(value, sent) -> bool:
    a = np.asarray(value, dtype=np.float64)
    b = np.asarray(sent, dtype=np.float64)
    if a.shape != b.shape:
        return False
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    return bool(np.allclose(a, b, rtol=RTOL, atol=RTOL * max(scale, 1e-30), equal_nan=True))
