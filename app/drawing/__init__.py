"""The drawing: views laid out by graphviz into SVG (server side).

layout.py turns the worker's layout input into drawings within a node budget; units.py cuts a view into
pieces laid out on their own, unit_dot.py and dot_text.py write their DOT text, compose.py runs ``dot`` and
nests the pieces into one SVG, cache.py keeps drawings keyed by structure, dot.py finds the ``dot`` program.
It runs in the server process (and in-process for the offline page); it reads ``app.folding.level`` and the
contract in ``app.schemas`` and imports nothing from the worker.
"""
