"""The MLP builder: a form's network written as an ordinary program (server and worker side).

builder.py checks the form and writes the program, with comments.py's words beside each line; the server's
/api/mlp routes use it. boundary.py runs in the worker: it replays a trained network over a grid for the
decision boundary, with builder.py's plan of the layers. limits.py reads the form's bounds for
``GET /api/limits`` and the page as one file.
"""
