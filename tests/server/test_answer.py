"""app/worker/answer.py: the worker's JSON with slots, completed by the server (app/server/splice.py),
equals the direct answer."""

import copy
import json

import engine as torch
from app.drawing.layout import LayoutCache, draw_response, draw_views, layout_data
from app.schemas import LayoutInput
from app.server.splice import splice_answer
from app.worker.answer import prepare_answer
from app.worker.serialize import serialize_trace
from engine import trace as T


def response():
    with T.recording() as rec:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        rec.name_tensor(w, "w")
        for k in range(2):
            (w * float(k + 1)).sum().backward()
    d = serialize_trace(rec.trace)
    d.update(variables={}, stdout='tricky "svg":"@@x-top@@" and "timings":"@@', error=None, svg="",
             timings={"run": 0.5})
    return d


def test_spliced_answer_equals_the_direct_one():
    direct = response()
    prepared = prepare_answer(copy.deepcopy(direct))
    cache = LayoutCache(8)
    drawings = draw_views(layout_data(LayoutInput.model_validate(prepared["layout"])), cache=cache)
    spliced = json.loads(splice_answer(prepared, drawings, {"run": 0.5, "layout": 0.1}))
    draw_response(direct, cache=cache)
    del direct["svg"]  # the answer carries the drawings in views only
    direct["timings"] = {"run": 0.5, "layout": 0.1}
    assert spliced == json.loads(json.dumps(direct))
    assert spliced["stdout"] == 'tricky "svg":"@@x-top@@" and "timings":"@@'
    assert len(spliced["views"]) == 2 and "svg" not in spliced


def test_a_number_json_cannot_write_is_null_and_the_rest_as_it_was():
    direct = response()
    direct["backward"][1]["seed"]["data"] = float("nan")
    prepared = prepare_answer(copy.deepcopy(direct))
    cache = LayoutCache(8)
    drawings = draw_views(layout_data(LayoutInput.model_validate(prepared["layout"])), cache=cache)
    spliced = json.loads(splice_answer(prepared, drawings, {"run": 0.5}))
    draw_response(direct, cache=cache)
    del direct["svg"]
    direct["timings"] = {"run": 0.5}
    direct["backward"][1]["seed"]["data"] = None
    assert spliced == json.loads(json.dumps(direct))  # every key by the name the page reads
