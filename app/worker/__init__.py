"""The worker: runs the user's program and turns its trace into the answer (inside the sandbox).

jobs.py is the door: the only functions a sandboxed child may run. execute.py is a job's body (run, check,
serialize, answer), serialize.py turns a trace into the answer's graph, views and steps, answer.py writes
the answer as JSON text with slots for the drawings, values.py writes tensors as JSON-safe numbers,
gradcheck.py and course.py check each backward pass by hand, explain/ says what each node and step is, and
lenses/ builds the data of the course views. It runs in a sandboxed child process and imports no server,
route or drawing code: the child loads only what its jobs need.
"""
