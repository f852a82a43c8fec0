"""Words in English and Chinese on the server's side: the page's catalogue read where the server
draws the page's words itself (``page.py``: the drawing's legend), and the server's own messages by id.
Runs in both the server and the worker; imports nothing from either side."""
