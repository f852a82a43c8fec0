"""Running untrusted programs: a template process inside an OS sandbox forks one fresh,
further-restricted child per request, answers come back as JSON data only, and requests are
admitted to the workers fairly among clients."""

from .admission import PoolBusy
from .confinement import SandboxUnavailable
from .pool import (
           JobFailed,
           Reply,
           RunTimeout,
           SandboxPool,
           WorkerCrashed,
           WorkerProtocolError,
)
from .template_process import SandboxSettings

__all__ = ["JobFailed", "PoolBusy", "Reply", "RunTimeout", "SandboxPool", "SandboxSettings",
           "SandboxUnavailable", "WorkerCrashed", "WorkerProtocolError"]
