"""``python -m gradviz``: the ``gradviz`` command."""

from .cli import entry

entry()
