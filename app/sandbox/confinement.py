"""The OS layer: the bubblewrap command line the template runs under.

The template (and every child it forks) gets its own pid, network, IPC, UTS and cgroup namespaces,
a new session, a read-only view of only the interpreter, its packages and the project's code, an
empty read-only /tmp, a minimal /dev and a /proc of its own pid namespace; it runs as the
unprivileged user 65534 (``nobody``) with no capabilities and no_new_privs. The seccomp filters
(app/sandbox/seccomp_rules.py) are added by the template itself once its imports are done.

When the server runs as root, bubblewrap sets up the namespaces as root and ``setpriv`` (util-linux)
then becomes 65534 for real before Python starts; otherwise an unprivileged user namespace maps the
server's own user to 65534.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from .. import package

NOBODY = 65534
ROOT = package.ROOT  # the checkout's root, or the installed gradviz package


class SandboxUnavailable(RuntimeError):
    """The OS layer cannot be set up on this machine (the message says why and what to do)."""


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap); "
            "set GRADVIZ_SANDBOX=language-only to run without the OS sandbox")
    return path


def check_readable_by_nobody(paths: list[Path]) -> None:
    """As root, the worker becomes user 65534: everything it must read has to be world-readable."""
    samples = [p / "__init__.py" if (p / "__init__.py").exists() else p for p in paths]
    samples.append(Path(os.path.realpath(sys.executable)))
    for p in samples:
        try:
            mode = p.stat().st_mode
        except OSError:
            continue
        if not mode & 0o004:
            raise SandboxUnavailable(
                f"{p} is not readable by other users, so the sandboxed worker (user {NOBODY}) cannot "
                f"load it: run `chmod -R o+rX` on the checkout and the Python installation, or set "
                "GRADVIZ_SANDBOX=language-only")


def readable_paths(extra_code: tuple[str, ...] = ()) -> list[Path]:
    """What the sandbox shows, read-only: shared libraries, the interpreter and its packages, and
    gradviz's code directories (``extra_code``: more directories of a checkout, for tests' job tables).
    Nested paths are dropped (their parent is bound already)."""
    wanted = [Path(p) for p in ("/usr/lib", "/usr/lib64", "/lib", "/lib64") if Path(p).exists()
              and not Path(p).is_symlink()]
    wanted += [Path(sys.base_prefix), Path(sys.prefix), Path(os.path.realpath(sys.executable)).parent]
    wanted += [Path(p) for p in sys.path if p and Path(p).is_dir() and Path(p).is_absolute()]
    wanted += _code(extra_code)
    out: list[Path] = []
    for p in sorted({q.resolve() if not q.is_symlink() else q for q in wanted}, key=lambda q: len(q.parts)):
        if p == ROOT or p == Path("/"):
            continue  # never the whole checkout (or the whole disk): only its code directories
        if not any(p == q or q in p.parents for q in out):
            out.append(p)
    return out


def _code(extra_code: tuple[str, ...]) -> list[Path]:
    return package.code_dirs() + [ROOT / d for d in extra_code]


def _parents(paths: list[Path]) -> list[Path]:
    """Every directory above a bound path, top down (bubblewrap would create them mode 0700)."""
    seen: list[Path] = []
    for p in paths:
        for parent in reversed(p.parents):
            if parent != Path("/") and parent not in seen:
                seen.append(parent)
    return [p for p in seen if p not in paths]


def command(python_args: list[str], env: dict[str, str], extra_code: tuple[str, ...] = ()) -> list[str]:
    """The full argv: bwrap, its options, then (as root) setpriv, then the Python command."""
    argv = [bwrap_path(), "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
            "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--clearenv"]
    as_root = os.geteuid() == 0
    if not as_root:
        argv += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL"]
    for key, value in env.items():
        argv += ["--setenv", key, value]
    paths = readable_paths(extra_code)
    setpriv = None
    if as_root:
        check_readable_by_nobody(_code(extra_code))
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise SandboxUnavailable("setpriv (util-linux) is needed to drop root inside the sandbox")
        paths.append(Path(setpriv))
    # The empty /tmp first: a Python installed under /tmp (a virtualenv made there) is bound over it.
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for parent in _parents(paths):
        argv += ["--perms", "0755", "--dir", str(parent)]
    for p in paths:
        argv += ["--ro-bind", str(p), str(p)]
    for link in ("/lib", "/lib64", "/bin"):  # merged-/usr systems: keep the loader's paths working
        if Path(link).is_symlink():
            argv += ["--symlink", os.readlink(link), link]
    argv += ["--remount-ro", "/tmp", "--chdir", str(ROOT)]
    if setpriv is not None:
        argv += [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}",
                 "--clear-groups", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    return argv + python_args
