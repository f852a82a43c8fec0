"""``gradviz why PROGRAM.py --tensor NAME``: the "Why?" of a named tensor's suspicious gradient, in
a terminal: the program runs as ``gradviz render`` runs it, and the answer's diagnosis
(app/worker/why/) is printed in English or Chinese, with the thresholds and the path it walked."""

from __future__ import annotations

import sys

from . import sandboxing
from .errors import GradvizError


def lines(answer: dict, name: str, lang: str = "en") -> list[str]:
    """What the terminal shows for ``name`` in a run's ``answer``."""
    from app.worker.why.words import HEALTHY, PATH, THRESHOLDS

    zh = lang == "zh"
    why = answer.get("why") or {"tensors": {}, "tiny": None, "huge": None}
    d = why["tensors"].get(name)
    if d is None:
        if name not in answer.get("variables", {}):
            known = ", ".join(sorted(answer.get("variables", {}))) or "-"
            raise GradvizError(f"the program binds no tensor named {name!r} (it binds: {known})")
        return [HEALTHY[zh].format(n=name)]
    out = (d["text"]["zh"] if zh else d["text"]["en"]).split("\n")
    labels = {n["id"]: n.get("var") or n.get("label") or f"#{n['id']}" for n in answer["graph"]["nodes"]}
    if d["path"]:
        out.append(PATH[zh].format(path=" → ".join(labels.get(i, f"#{i}") for i in d["path"])))
    out.append(THRESHOLDS[zh].format(tiny=why["tiny"], huge=why["huge"]))
    return out


def run(args) -> int:
    """The ``why`` command: returns the exit status."""
    from .output import answer_of, read_program

    source = read_program(args.program)
    _, containment = sandboxing.containment_for(args.sandbox, "--no-sandbox", warn=False)
    print(f"gradviz: {containment}", file=sys.stderr)
    answer = answer_of(source, file=args.program, sandbox=args.sandbox, opted_out="--no-sandbox",
                       warn=False).answer
    for line in lines(answer, args.tensor, args.lang):
        print(line)
    return 0


def add_parser(sub) -> None:
    """The ``why`` subcommand's arguments."""
    why = sub.add_parser("why", help="say why a named tensor's gradient is None, zero, NaN, tiny or huge")
    why.add_argument("program", help="a Python program using torch (run by gradviz's engine)")
    why.add_argument("--tensor", required=True, help="the name the program binds the tensor to")
    why.add_argument("--lang", choices=("en", "zh"), default="en", help="the language of the answer")
    where = why.add_mutually_exclusive_group()
    where.add_argument("--no-sandbox", dest="sandbox", action="store_const", const=False, default="auto",
                       help="run the program with the language layer only, not in the OS sandbox")
    where.add_argument("--sandbox", dest="sandbox", action="store_const", const="require",
                       help="fail when the OS sandbox (bubblewrap) cannot run the program")
