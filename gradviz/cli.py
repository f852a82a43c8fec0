"""The ``gradviz`` command.

    gradviz serve [--host H] [--port P] [--workers N]      the web page (as ``python -m app``)
    gradviz render PROGRAM.py -o OUT.html|.svg|.png [--lang zh] [--view N] [--no-sandbox | --sandbox]
    gradviz why PROGRAM.py --tensor NAME [--lang zh] [--no-sandbox | --sandbox]

``render`` runs the program through gradviz's runner (``import engine as torch``: the same
language and limits as the page), in the server's OS sandbox when bubblewrap is installed (else
with the language layer alone; ``--no-sandbox``: on purpose; ``--sandbox``: fail without it), and
writes the page that plays it as one HTML file, or the drawing of its graph; ``why`` runs it the same
way and prints why a named tensor's gradient is suspicious (gradviz/why_cli.py). A line on stderr
says which layers ran it. Bad input gets one line that says what is wrong, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import sandboxing, why_cli
from .errors import GradvizError


def _render(args) -> int:
    from .output import _output, answer_of, read_program, write

    out = _output(args.output)
    source = read_program(args.program)
    _, containment = sandboxing.containment_for(args.sandbox, "--no-sandbox", warn=False)
    print(f"gradviz: {containment}", file=sys.stderr)  # before the run: also when the program cannot run
    run = answer_of(source, file=args.program, sandbox=args.sandbox, opted_out="--no-sandbox", warn=False)
    write(run, out, lang=args.lang, view=args.view)
    print(f"gradviz: wrote {out} ({out.stat().st_size:,} bytes)")
    err = run[0].get("error")
    if err:
        where = f" at line {err['line']}" if err.get("line") else ""
        print(f"gradviz: note: the program stopped{where} with {err['type']}: {err['message']} "
              "(the file shows what ran before, and the error)", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradviz", description="Computational graphs, step by step.")
    sub = parser.add_subparsers(dest="command", metavar="{serve,render,why}")
    sub.add_parser("serve", help="serve the page: gradviz serve [--host H] [--port P] [--workers N]")
    render = sub.add_parser("render", help="write a program's run as one HTML file (or its graph as SVG/PNG)")
    render.add_argument("program", help="a Python program using torch (run by gradviz's engine)")
    render.add_argument("-o", "--output", required=True, help="OUT.html, OUT.svg or OUT.png")
    render.add_argument("--lang", choices=("en", "zh"), default="en", help="the page's language at first")
    render.add_argument("--view", type=int, default=0,
                        help="for .svg/.png: which graph, when the program ran several backward passes")
    where = render.add_mutually_exclusive_group()
    where.add_argument("--no-sandbox", dest="sandbox", action="store_const", const=False, default="auto",
                       help="run the program with the language layer only, not in the OS sandbox")
    where.add_argument("--sandbox", dest="sandbox", action="store_const", const="require",
                       help="fail when the OS sandbox (bubblewrap) cannot run the program "
                            "(default: use it when it can, else the language layer only)")
    why_cli.add_parser(sub)
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:  # its options are the server's own (python -m app)
        from app.__main__ import main as serve

        serve(argv[1:], prog="gradviz serve")
        return 0
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return why_cli.run(args) if args.command == "why" else _render(args)
    except GradvizError as exc:
        print(f"gradviz: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    """The console script."""
    sys.exit(main())
