"""What a view shows: its parts, what is open, what is left out (read by both sides, imports neither).

level.py says at which level a view is drawn and which parts are open; parts.py finds the parts (module
calls, loops, chunks of iterations) in a trace's scopes; views.py cuts a trace into views; skeleton.py keeps
the steps a long run shows; plan.py chooses what an answer shows open; delta.py leaves out what the page
already has; ahead.py says which open sets the server answers before the click. The worker uses it to
serialize a trace and the drawing reads level.py, so nothing here imports the worker, the drawing or the
server.
"""
