"""DOT text for the drawings: how each kind of node looks, and the writer (no values: the text is
the layout cache's key, so two graphs of the same structure give the same text)."""

from __future__ import annotations

from ..numbers import number_text
from ..words.page import legend_words, page_words

# Colours of the legend (and of the drawing).
COLORS = {
    "input": ("#dbeafe", "#2563eb"),  # leaf that needs no grad (fill, border)
    "param": ("#dcfce7", "#16a34a"),  # leaf with requires_grad (a parameter)
    "op": ("#f3f4f6", "#4b5563"),  # op node (grad_fn)
    "output": ("#fef3c7", "#d97706"),  # the output (a backward root)
    "saved": ("#ffffff", "#ea580c"),  # border of a tensor saved for backward
    "constant": ("#ffffff", "#9ca3af"),  # a wrapped Python number
    "module": ("#ede9fe", "#7c3aed"),  # a closed nn.Module call
    "loop": ("#e0f2fe", "#0369a1"),  # a closed loop, chunk of iterations or segment
    "frame": ("#f8fafc", "#64748b"),  # an open loop's frame
    "ghost": ("#ffffff", "#94a3b8"),  # a copy of a node drawn beside one of its uses
}
# The legend under a drawing: (colour, English, Chinese), from the page's catalogue (its dl_<colour>
# entries, static/js/i18n/): the one place of its words. Graphviz writes the English; a drawing for
# Chinese readers has it replaced (legend_in); the page does the same (static/js/graph_svg.js).
LEGEND = legend_words()
LEGEND_SIZE = 9  # points: no other text of a drawing has this size


# ---- node appearance ----------------------------------------------------------------------------------
def node_attrs(n: dict) -> dict:
    """Shape, colours and label lines of one node (no values: the text is part of the cache key)."""
    if n["kind"] == "leaf":
        if n.get("is_constant"):
            fill, border = COLORS["constant"]
            attrs = {"shape": "ellipse", "label": [clip(n["name"])], "style": "filled,dashed"}
        else:
            fill, border = COLORS["param" if n["requires_grad"] or n.get("is_param") else "input"]
            attrs = {"shape": "ellipse", "label": [clip(n.get("label") or n["name"]), shape_text(n["shape"])]}
    else:
        fill, border = COLORS["output" if n.get("is_output") else "op"]
        var = n.get("sym") or n.get("var")  # the names the explanations use
        second = f"{clip(var)}: {shape_text(n['shape'])}" if var else shape_text(n["shape"])
        attrs = {"shape": "box", "label": [n.get("label") or n["name"], second], "style": "rounded,filled"}
    attrs["fillcolor"] = fill
    attrs["color"] = border
    if n.get("is_output"):
        attrs["penwidth"] = "2"
    if n.get("is_saved"):
        attrs["color"] = COLORS["saved"][1]
        attrs["penwidth"] = "2"
    return attrs


# A 0-d tensor's shape in a node's label (the catalogue's dn_scalar). Written in English whatever the
# page's language (a layout is cached per structure, for every reader): the page writes it in its own
# (static/js/graph_svg.js).
SCALAR = page_words("en")["dn_scalar"]
# An edge out of a node of several outputs (UnbindBackward0, SplitBackward0) says which output it
# carries, as torch's next_functions pairs do: "output 1 · [2]" (the catalogue's de_output, in
# English here, written in the page's language by static/js/graph_svg.js).
OUTPUT_WORD = page_words("en")["de_output"]


def shape_text(shape: list[int]) -> str:
    """[2, 3] for a matrix, SCALAR for a 0-d tensor."""
    return SCALAR if not shape else "[" + ", ".join(str(s) for s in shape) + "]"


def constant_text(literal: str) -> str:
    """A wrapped number's label: its literal, shortened to fit the placeholder's box."""
    if len(literal) <= 7:
        return literal
    try:
        return number_text(float(literal), minus="-")
    except ValueError:
        return clip(literal, 7)


def clip(text: str | None, n: int = 24) -> str:
    text = text or ""
    return text if len(text) <= n else text[: n - 1] + "…"


def _text_width(text: str) -> int:
    """About how wide ``text`` is written at the legend's size, in points (a Chinese character,
    or a full-width sign, is as wide as the size; a Latin letter a little more than half)."""
    return round(sum(LEGEND_SIZE if ord(c) >= 0x2E80 else 0.6 * LEGEND_SIZE for c in text))


def legend_label(lang: str = "en") -> str:
    """The legend as an HTML-like graph label (drawn below the graph, not laid out with it), each
    line with room for its words in either language (``legend_in`` may put the other in)."""
    cells = []
    for key, en, zh in LEGEND:
        fill, border = COLORS[key]
        room = max(_text_width(en), _text_width(zh))
        cells.append(f'<td bgcolor="{fill}" color="{border}" border="2" width="14" height="10"></td>'
                     f'<td align="left" width="{room}"><font point-size="{LEGEND_SIZE}">'
                     f'{zh if lang == "zh" else en}</font></td>')
    return f'<<table border="0" cellspacing="4" cellpadding="2"><tr>{"".join(cells)}</tr></table>>'


def legend_in(text: str, lang: str) -> str:
    """A drawing's SVG (or the DOT text it was drawn from) with its legend in ``lang`` (the app
    writes it in English)."""
    if lang != "zh":
        return text
    written = ((f'font-size="{LEGEND_SIZE}.00">', "</text>"), (f'point-size="{LEGEND_SIZE}">', "</font>"))
    for _, en, zh in LEGEND:
        for before, after in written:  # in the SVG, in the DOT text
            text = text.replace(f"{before}{en}{after}", f"{before}{zh}{after}", 1)
    return text


# ---- DOT text ---------------------------------------------------------------------------------------------
GRAPH_ATTRS = {"nodesep": "0.25", "ranksep": "0.45", "fontname": "Helvetica", "fontsize": "10",
               "bgcolor": "transparent", "labelloc": "b", "labeljust": "l", "forcelabels": "true"}
NODE_DEFAULTS = {"fontname": "Helvetica", "fontsize": "10", "height": "0.3", "style": "filled"}
EDGE_DEFAULTS = {"fontname": "Helvetica", "fontsize": "8", "fontcolor": "#6b7280", "arrowsize": "0.6",
                 "color": "#6b7280"}


class LeftText(str):
    """A one-line label written at the left of its node (DOT's \\l line end)."""


def dot_string(value) -> str:
    """A DOT attribute value: a quoted string; a list is label lines (joined by DOT's \\n)."""
    if isinstance(value, LeftText):
        return '"' + escape(value) + '\\l"'
    if isinstance(value, list):
        return '"' + "\\n".join(escape(v) for v in value) + '"'
    return '"' + escape(str(value)) + '"'


def escape(text: str) -> str:
    """Text as it goes inside a DOT quoted string."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _attr_list(attrs: dict) -> str:
    return " ".join(f"{k}={dot_string(v)}" for k, v in attrs.items())


class DotWriter:
    """DOT text for one digraph. Written directly: the graphviz package's quoting took 27 ms for a
    600-node graph, half of what ``dot`` itself takes to lay out a 300-op chain. Most nodes of a
    large graph look alike: each distinct attribute list is written once."""

    def __init__(self):
        self.lines: list[str] = []
        self._written: dict[tuple, str] = {}

    def _attrs(self, attrs: dict) -> str:
        key = tuple((k, type(v), tuple(v) if isinstance(v, list) else v) for k, v in attrs.items())
        text = self._written.get(key)
        if text is None:
            text = self._written[key] = _attr_list(attrs)
        return text

    def node(self, name: str, id: str | None = None, **attrs) -> None:
        ident = f'id="{id}" ' if id is not None else ""
        self.lines.append(f"\t{name} [{ident}{self._attrs(attrs)}]")

    def edge(self, source: str, target: str, id: str | None = None, **attrs) -> None:
        ident = f'id="{id}" ' if id is not None else ""
        self.lines.append(f"\t{source} -> {target} [{ident}{self._attrs(attrs)}]")

    def source(self, graph_attrs: dict, legend: bool = True) -> str:
        """The whole digraph (``legend``: the colour legend as the graph's label, drawn below it)."""
        label = f" label={legend_label()}" if legend else ""
        head = [
            "digraph {",
            f"\tgraph [{_attr_list(graph_attrs)}{label}]",
            f"\tnode [{_attr_list(NODE_DEFAULTS)}]",
            f"\tedge [{_attr_list(EDGE_DEFAULTS)}]",
        ]
        return "\n".join(head + self.lines + ["}", ""])
