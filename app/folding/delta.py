"""What an answer of ``POST /api/open`` leaves out: what the page's drawing already shows.

The page keeps every node and step it was sent (static/js/merge.js joins an answer into the run's),
so an answer for a view whose parts ``had`` were open when the user opened one more need not send
again the nodes shown then (every part around them was open) or their backward steps: only what
the newly opened part brings. The view's node and edge ids stay whole (they say what is drawn).
"""

from __future__ import annotations


def shown_at(answer: dict, had: list[str]) -> set[int]:
    """The ids of the answer's nodes that a drawing with the parts ``had`` open shows (every part
    they lie in, from the innermost out, is open)."""
    parent = {p["id"]: p.get("parent") for p in answer["parts"]}
    opened = set(had)
    shown = set()
    for n in answer["graph"]["nodes"]:
        q = n.get("part")
        while q is not None and q in opened:
            q = parent.get(q)
        if q is None:
            shown.add(n["id"])
    return shown


def without_held(answer: dict, had: list[str] | None) -> dict:
    """``answer`` (one view, as ``app.worker.execute.view_answer`` makes it) without the nodes, edges
    between them and backward steps a drawing with the parts ``had`` open already showed; all of
    it when ``had`` is None (the page holds nothing of this view yet, or did not say)."""
    if had is None:
        return answer
    held = shown_at(answer, had)
    graph = dict(answer["graph"], nodes=[n for n in answer["graph"]["nodes"] if n["id"] not in held],
                 edges=[e for e in answer["graph"]["edges"]
                        if e["source"] not in held or e["target"] not in held])
    backward = [dict(bp, steps=[st for st in bp["steps"] if st["node"] not in held])
                for bp in answer["backward"]]
    return dict(answer, graph=graph, backward=backward)


def held_in_view(views: list[dict], parts: list[dict], nodes: list[dict], view: int,
                 had: list[str]) -> set[int]:
    """The ids of the nodes of view ``view`` (of a serialized run's ``views``, ``parts`` and graph
    ``nodes``) that a drawing of it with the parts ``had`` open shows: what ``without_held`` leaves
    out of that view's answer, known before its steps are written and explained."""
    if not 0 <= view < len(views):
        return set()
    drawn = set(views[view]["nodes"])
    return shown_at({"parts": [p for p in parts if p["view"] == view],
                     "graph": {"nodes": [n for n in nodes if n["id"] in drawn]}}, had)
