"""Running untrusted programs: a template process inside an OS sandbox forks one fresh,
further-restricted child per request, and answers come back as JSON data only."""

from .confinement import SandboxUnavailable
from .pool import (
           JobFailed,
           PoolBusy,
           Reply,
           RunTimeout,
           SandboxPool,
           SandboxSettings,
           WorkerCrashed,
           WorkerProtocolError,
)

__all__ = ["JobFailed", "PoolBusy", "Reply", "RunTimeout", "SandboxPool", "SandboxSettings",
           "SandboxUnavailable", "WorkerCrashed", "WorkerProtocolError"]
