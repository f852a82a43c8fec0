"""A diagnosis as sentences: ``words.py``'s templates filled in with the program's names (the
variable an op's output was bound to, else its grad_fn name) and the finding's numbers."""

from __future__ import annotations

from ..explain.text import fmt_num
from . import words as W


def label(trace, nid: int | None, zh: bool = False) -> str:
    """What the sentences call node ``nid``: its variable, else its grad_fn name; with its line."""
    if nid is None:
        return "?"
    n = trace.nodes[nid]
    if n.kind != "op":
        return n.name or ("张量" if zh else "tensor")
    where = "" if n.line is None else f"，第 {n.line} 行" if zh else f", line {n.line}"
    inner = f"{n.grad_fn}{where}" if n.name else f"{n.op}{where}"
    outer = n.name or n.grad_fn
    return f"{outer}（{inner}）" if zh else f"{outer} ({inner})"


def say(trace, name: str, f: dict) -> dict:
    """``{"en": ..., "zh": ...}``: the symptom, the cause, then the layers, one sentence a line."""
    en, zh = W.SYMPTOM[f["symptom"]]
    lines = [(en.format(n=name), zh.format(n=name))]
    lines.append(_cause(trace, name, f))
    lines += _layers(trace, f)
    return {"en": "\n".join(a for a, _ in lines), "zh": "\n".join(b for _, b in lines)}


def _cause(trace, name: str, f: dict) -> tuple[str, str]:
    cause, op, facts = f["cause"], f["op"], f["facts"]
    line = facts.get("line")
    src = facts.get("src") if f["at"] is None else _plain(trace, f["at"])
    fill = {"n": name, "op": label(trace, f["at"]), "src": src or "?",
            "made": _plain(trace, facts.get("made"), "a new tensor"), "ran": facts.get("ran") or op,
            "where": f"At line {line}, " if line is not None else "", "where2": "",
            "hook": facts.get("hook") or "", "zeros": facts.get("zeros"), "size": facts.get("size")}
    zh_fill = dict(fill, where=f"第 {line} 行，" if line is not None else "", op=label(trace, f["at"], True),
                   made=_plain(trace, facts.get("made"), "一个新张量"))
    if line is not None:
        fill["where2"], zh_fill["where2"] = f" (line {line})", f"（第 {line} 行）"
    if cause == "cut" and facts.get("subject_made") and op in W.HOW:
        en, zh = W.MADE
        fill["how"], zh_fill["how"] = (h.format(ran=fill["ran"]) for h in W.HOW[op])
    elif cause == "cut":
        en, zh = W.CUT.get(op, W.CUT["op"])
    elif cause == "zeroed":
        en, zh = W.ZEROED.get(op, W.ZEROED["op"])
        r = W.REASON[W._REASON_OF.get(op, "other")]
        fill["reason"], zh_fill["reason_zh"] = r
        fill["reason_zh"], zh_fill["reason"] = r[1], r[0]
    elif cause in ("vanish", "explode"):
        en, zh = W.SCALE[cause]
        link = facts["chain"][facts["crossed"]]
        for d in (fill, zh_fill):
            d.update(mean=fmt_num(facts["mean"]), limit=fmt_num(facts["limit"]),
                     factor=fmt_num(link["factor"]) if link["factor"] is not None else "?")
    elif cause == "nonfinite":
        en, zh = W.NONFINITE[facts["where"]]
        r = W.NONFINITE_REASON.get(op, ("", ""))
        shown = "; ".join(", ".join(fmt_num(x) for x in xs) for xs in facts["inputs"])
        for d in (fill, zh_fill):
            d.update(inputs=shown, reason=r[0], reason_zh=r[1])
    elif cause == "not_yet":
        en, zh = W.NOT_YET[op]
    else:
        en, zh = W.UNKNOWN
    return en.format(**fill), zh.format(**zh_fill)


def _plain(trace, nid: int | None, default: str = "?") -> str:
    """A node's variable name (or grad_fn name), without its line."""
    if nid is None:
        return default
    n = trace.nodes[nid]
    return n.name or (f"{n.op}(…)" if n.kind == "op" else default)


def _layers(trace, f: dict) -> list[tuple[str, str]]:
    """One line per ReLU layer (its inputs ≤ 0, its dead units), or per op of the scale chain, and one
    where a deep model's middle ones were left out."""
    out = []
    for layer in f["facts"].get("layers") or []:
        if layer.get("gap"):
            out.append(tuple(x.format(k=layer["gap"]) for x in W.GAP_LAYERS))
        le0, size = layer["le0"], layer["size"]
        module = f"{layer['module']} · " if layer["module"] else ""
        en = f"{module}{label(trace, layer['node'])}: {le0} of {size} inputs ≤ 0"
        zh = f"{module}{label(trace, layer['node'], True)}：{size} 个输入中 {le0} 个 ≤ 0"
        if "dead" in layer:
            en += f", {layer['dead']} of {layer['units']} units dead (≤ 0 on every row)"
            zh += f"，{layer['units']} 个单元中 {layer['dead']} 个已死（每一行都 ≤ 0）"
        out.append((en + ".", zh + "。"))
    for link in f["facts"].get("chain") or []:
        if link.get("gap"):
            out.append(tuple(x.format(k=link["gap"]) for x in W.GAP_OPS))
        factor = fmt_num(link["factor"]) if link["factor"] is not None else "?"
        en = f"{label(trace, link['node'])}: ×{factor} → {fmt_num(link['after'])}"
        zh = f"{label(trace, link['node'], True)}：×{factor} → {fmt_num(link['after'])}"
        if link.get("derivative") is not None:
            d = fmt_num(link["derivative"])
            en += f" (its mean derivative {d})"
            zh += f"（平均导数 {d}）"
        out.append((en, zh))
    return out
