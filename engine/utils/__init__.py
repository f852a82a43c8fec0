"""``torch.utils``: ``data`` (datasets and loaders) and ``hooks`` (the handles hooks return)."""

from . import data, hooks  # noqa: F401
