"""The HTTP machinery around the routes (server side).

pool.py starts and stops the sandbox pool and gives each request its time budget; clients.py names each
browser (session cookie, trusted proxies) for fair use; metrics.py counts requests for /metrics;
body_limit.py refuses large request bodies; errors.py writes errors as the API's error shape; csp.py writes
the Content-Security-Policy; http_protocol.py is uvicorn's protocol with Nagle off; splice.py puts the
server's drawings into the worker's answer text and checks them. It runs in the server process; the worker
imports none of it.
"""
