"""The OS layer: the bubblewrap command line the template runs under.

The template (and every child it forks) gets its own pid, network, IPC, UTS and cgroup namespaces,
a new session, a read-only view of only what it imports, an empty read-only /tmp, a minimal /dev
and a /proc of its own pid namespace; it runs as the unprivileged user 65534 (``nobody``) with no
capabilities and no_new_privs. The seccomp filters (app/sandbox/seccomp_rules.py) are added by the
template itself once its imports are done.

What it sees is laid out at neutral paths, whatever the server's own layout (a checkout anywhere, a
virtualenv under /tmp, an installed wheel): the interpreter and its standard library under
``/usr/local/lib/gradviz-python``, only the distributions a worker imports (``WORKER_PACKAGES``)
in a site directory of their own there, gradviz's code directories under ``/srv/gradviz``, and the
system's shared libraries. bubblewrap reads its options from a descriptor (``--args``), so its
command line (pid 1's, which a worker can read) names none of the server's paths.

When the server runs as root, bubblewrap sets up the namespaces as root and ``setpriv`` (util-linux)
then becomes 65534 for real before Python starts; otherwise an unprivileged user namespace maps the
server's own user to 65534.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from .. import package

NOBODY = 65534
ROOT = package.ROOT  # the checkout's root, or the installed gradviz package
PYTHON_HOME = Path("/usr/local/lib/gradviz-python")  # the interpreter, inside the sandbox
SITE = PYTHON_HOME / "site-packages"  # the distributions a worker imports, inside the sandbox
CODE = Path("/srv/gradviz")  # on the sandbox's sys.path: app/ and engine/, or gradviz/
SANDBOX_ROOT = CODE / "gradviz" if package.INSTALLED else CODE  # ROOT, as the sandbox sees it
# Third-party top-level modules a worker imports (the engine's arrays and the answer's schemas; the
# drawing, and graphviz with it, is the server's); tests/sandbox/test_confinement.py checks the list
# against the imports.
WORKER_PACKAGES = ("numpy", "pydantic", "pydantic_core", "annotated_types", "typing_extensions",
                   "typing_inspection", "orjson")
SYSTEM_LIBS = ("/usr/lib", "/usr/lib64", "/lib", "/lib64")


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


def _code(extra_code: tuple[str, ...]) -> list[Path]:
    return package.code_dirs() + [ROOT / d for d in extra_code]


def code_binds(extra_code: tuple[str, ...] = ()) -> list[tuple[Path, Path]]:
    """(host path, sandbox path) of gradviz's code: the engine and the app (and ``extra_code``,
    directories of a checkout for tests' job tables) where ``SANDBOX_ROOT`` has them; installed,
    also what else the ``gradviz`` package holds (importing ``gradviz.app`` runs its __init__)."""
    binds = [(ROOT / "engine", SANDBOX_ROOT / "engine"), (package.APP_DIR, SANDBOX_ROOT / "app")]
    binds += [(ROOT / d, SANDBOX_ROOT / d) for d in extra_code]
    if package.INSTALLED:
        top = package.code_dirs()[-1]
        binds += [(p, SANDBOX_ROOT / p.name) for p in sorted(top.iterdir())
                  if p.name not in ("engine", "app", "__pycache__") and not p.name.endswith(".pyc")]
    return binds


def python_binds() -> list[tuple[Path, Path]]:
    """(host path, sandbox path) of the interpreter: its executable, its standard library (at the
    same place below ``PYTHON_HOME`` as below its prefix, so that it finds it), and its shared
    library when it has one."""
    prefix = Path(sys.base_prefix).resolve()
    binds = [(Path(os.path.realpath(sys.executable)), PYTHON_HOME / "bin" / "python3")]
    for name in ("stdlib", "platstdlib"):
        path = Path(sysconfig.get_path(name, vars={"installed_base": sys.base_prefix,
                                                   "platbase": sys.base_prefix})).resolve()
        try:
            binds.append((path, PYTHON_HOME / path.relative_to(prefix)))
        except ValueError:
            raise SandboxUnavailable(f"the standard library ({path}) is not below the interpreter's "
                                     f"prefix ({prefix}); set GRADVIZ_SANDBOX=language-only") from None
    shared = _shared_library()
    if shared is not None:
        binds.append((shared, PYTHON_HOME / "lib" / shared.name))
    return list(dict.fromkeys(binds))


def _shared_library() -> Path | None:
    """libpythonX.Y.so of an interpreter built with --enable-shared (found with LD_LIBRARY_PATH)."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return None
    name, libdir = sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LIBDIR")
    path = Path(libdir or "", name or "")
    return path.resolve() if name and path.is_file() else None


def package_binds() -> list[tuple[Path, Path]]:
    """(host path, sandbox path) of each distribution in ``WORKER_PACKAGES``, and of the shared
    libraries a wheel vendors beside it (``numpy.libs``, found by relative paths)."""
    binds = []
    for name in WORKER_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        if spec.submodule_search_locations:
            path = Path(next(iter(spec.submodule_search_locations))).resolve()
        else:
            path = Path(spec.origin).resolve()
        binds.append((path, SITE / path.name))
        libs = path.parent / f"{name}.libs"
        if libs.is_dir():
            binds.append((libs.resolve(), SITE / libs.name))
    return binds


def system_paths() -> list[Path]:
    """The system's shared libraries, bound where they are (the dynamic loader looks there)."""
    return [Path(p) for p in SYSTEM_LIBS if Path(p).exists() and not Path(p).is_symlink()]


def environment() -> dict[str, str]:
    """The variables the sandboxed interpreter needs to find its packages and its shared library."""
    path = [str(SITE)] + ([str(CODE)] if package.INSTALLED else [])
    env = {"PYTHONPATH": os.pathsep.join(path), "PYTHONHOME": str(PYTHON_HOME)}
    if _shared_library() is not None:
        env["LD_LIBRARY_PATH"] = str(PYTHON_HOME / "lib")
    return env


def python_command(module_args: list[str]) -> list[str]:
    """The interpreter's command line inside the sandbox (``-S``: no site module, so no .pth file
    or site directory adds to the path: it is ``environment()``'s and the standard library's)."""
    return [str(PYTHON_HOME / "bin" / "python3"), "-S", *module_args]


def _parents(paths: list[Path], bound: set[Path]) -> list[Path]:
    """Every directory above a bound path, top down (bubblewrap would create them mode 0700)."""
    seen: list[Path] = []
    for p in paths:
        for parent in reversed(p.parents):
            if parent != Path("/") and parent not in seen:
                seen.append(parent)
    return [p for p in seen if p not in bound and not any(b in p.parents for b in bound)]


def options(env: dict[str, str], extra_code: tuple[str, ...] = ()) -> list[str]:
    """bubblewrap's options (read from a descriptor: ``--args``), up to the command it runs."""
    argv = ["--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try", "--clearenv"]
    as_root = os.geteuid() == 0
    if not as_root:
        argv += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL"]
    for key, value in {**env, **environment()}.items():
        argv += ["--setenv", key, value]
    system = system_paths()
    if as_root:
        check_readable_by_nobody(_code(extra_code))
        system.append(Path(setpriv_path()))
    binds = [(p, p) for p in system] + python_binds() + package_binds() + code_binds(extra_code)
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--remount-ro", "/tmp"]
    dests = [dest for _, dest in binds]
    for parent in _parents(dests, set(system)):
        argv += ["--perms", "0755", "--dir", str(parent)]
    for src, dest in binds:
        argv += ["--ro-bind", str(src), str(dest)]
    for src, dest in python_binds():  # the interpreter's own site directory, and what it holds
        if (src / "site-packages").is_dir():
            argv += ["--tmpfs", str(dest / "site-packages"), "--remount-ro", str(dest / "site-packages")]
    for link in ("/lib", "/lib64", "/bin"):  # merged-/usr systems: keep the loader's paths working
        if Path(link).is_symlink():
            argv += ["--symlink", os.readlink(link), link]
    return argv + ["--chdir", str(SANDBOX_ROOT)]


def setpriv_path() -> str:
    path = shutil.which("setpriv")
    if path is None:
        raise SandboxUnavailable("setpriv (util-linux) is needed to drop root inside the sandbox")
    return path


def command(module_args: list[str], env: dict[str, str], extra_code: tuple[str, ...] = ()
            ) -> tuple[list[str], bytes]:
    """The argv (bwrap, ``--args FD`` left for the caller to fill with the descriptor's number, then
    as root setpriv, then the Python command) and the options to write to that descriptor."""
    argv = [bwrap_path(), "--args", "{fd}"]
    if os.geteuid() == 0:
        argv += [setpriv_path(), f"--reuid={NOBODY}", f"--regid={NOBODY}",
                 "--clear-groups", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    data = b"".join(a.encode() + b"\0" for a in options(env, extra_code))
    return argv + python_command(module_args), data
