"""Which ``gradviz.record()`` block is running in this thread (blocks do not nest)."""

import threading

ACTIVE = threading.local()
