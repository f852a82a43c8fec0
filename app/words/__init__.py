"""Words in English and Chinese on the server's side: the page's catalogue read where the server
draws the page's words itself (``page.py``: the drawing's legend). Runs in the server; imports nothing."""
