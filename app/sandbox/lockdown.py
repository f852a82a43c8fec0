"""Restrictions a sandboxed process puts on itself (plain ``ctypes`` and ``resource``: this runs
inside the sandbox, where only the interpreter, its packages and the project's code are visible).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39
_SECCOMP_MODE_FILTER = 2
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg2: int = 0) -> int:
    """prctl(2) with the unused arguments zero."""
    res = _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(0), ctypes.c_ulong(0),
                      ctypes.c_ulong(0))
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")
    return res


def die_with_parent() -> None:
    """SIGKILL this process when the process that started it ends (no orphan outlives the server)."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def not_dumpable() -> None:
    """Other processes of the same user cannot trace this one or read its memory (/proc/PID/mem)."""
    _prctl(_PR_SET_DUMPABLE, 0)


def no_new_privs() -> None:
    """No exec can ever grant privileges again (setuid bits, file capabilities)."""
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def _program(program: bytes) -> tuple[_SockFprog, ctypes.Array]:
    if not program or len(program) % 8:
        raise ValueError("not a BPF program")
    n = len(program) // 8
    buf = (_SockFilter * n).from_buffer_copy(program)
    return _SockFprog(n, ctypes.cast(buf, ctypes.POINTER(_SockFilter))), buf


def load_bpf(program: bytes) -> None:
    """Install a raw seccomp BPF program (8 bytes per instruction) on this thread (and the threads
    and processes it starts from now on), for good."""
    prog, _buf = _program(program)
    no_new_privs()
    res = _libc.prctl(ctypes.c_int(_PR_SET_SECCOMP), ctypes.c_ulong(_SECCOMP_MODE_FILTER), ctypes.byref(prog),
                      ctypes.c_ulong(0), ctypes.c_ulong(0))
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"loading the seccomp filter failed: {os.strerror(err)}")


def load_bpf_all_threads(program: bytes, seccomp_nr: int) -> None:
    """Install a raw seccomp BPF program on every thread of this process at once (seccomp(2) with
    TSYNC, ``seccomp_nr`` being its number here): a thread already running gets it too."""
    prog, _buf = _program(program)
    no_new_privs()
    res = _libc.syscall(ctypes.c_long(seccomp_nr), ctypes.c_ulong(_SECCOMP_SET_MODE_FILTER),
                        ctypes.c_ulong(_SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog))
    if res != 0:  # > 0: the id of a thread that could not take it
        err = ctypes.get_errno() if res < 0 else 0
        raise OSError(err, f"loading the seccomp filter on every thread failed ({res}, {os.strerror(err)})")


def lower_priority(to: int) -> None:
    """Raise this process's nice value to ``to`` (at most 19; never down: with RLIMIT_NICE 0
    (``limit``) and no CAP_SYS_NICE it could not come back)."""
    now = os.getpriority(os.PRIO_PROCESS, 0)
    if to > now:
        os.setpriority(os.PRIO_PROCESS, 0, min(19, to))


def limit_nice() -> None:
    """The nice value can be raised, never lowered (without CAP_SYS_NICE)."""
    resource.setrlimit(resource.RLIMIT_NICE, (0, 0))


def limit_processes(count: int) -> None:
    """At most ``count`` processes and threads of this user (counted by the kernel for the real
    user id: every process of user 65534 on this machine when the server runs as root)."""
    resource.setrlimit(resource.RLIMIT_NPROC, (count, count))


def limit(memory_bytes: int | None, cpu_seconds: int | None, open_files: int | None = None) -> None:
    """Resource limits: address space, CPU time, no file growth, no core dumps, few descriptors."""
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    if cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    if open_files:
        resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit_nice()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with EFBIG instead of killing


NAMESPACES = ("pid", "net", "mnt", "ipc", "uts")


def status() -> dict:
    """What this process can see of its own confinement (from /proc/self/status)."""
    out = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("Uid", "NoNewPrivs", "Seccomp", "CapEff", "CapBnd"):
                    out[key] = value.split()
    except OSError:
        pass
    for ns in NAMESPACES:
        try:
            out[f"ns_{ns}"] = os.readlink(f"/proc/self/ns/{ns}")
        except OSError:
            out[f"ns_{ns}"] = None
    return out
