"""The seccomp filters of the worker sandbox, compiled here with libseccomp (pyseccomp binds it).

They are built on the server, outside the sandbox, and sent to the template process as raw BPF
bytes, which it loads with one ``prctl`` (``lockdown.load_bpf``): the sandbox needs neither
libseccomp nor a writable place to find it.

Three filters, stacked (the kernel applies every filter a process has ever loaded):
- ``template``: for the template and, by inheritance, every process it forks. No new programs
  (execve), no sockets but Unix socket pairs, no file creation or modification, no tracing or
  reading of other processes' memory, nothing that acts on another process (its limits, priority,
  CPUs or scheduling; signals by way of a descriptor's owner), no System V or POSIX IPC (the
  sandbox's IPC namespace is shared by all the template's children), none of the kernel's
  administrative or rarely used attack surfaces.
- ``child``: added by each forked child before it reads its request. Also no processes
  (only threads), no signals to anyone, no sockets at all.
- ``threads``: added by each child once its one extra thread (the watchdog) runs, to all its
  threads at once: no new threads either.

A refused call fails with EPERM (so a payload sees a clear ``PermissionError``); a call of a
foreign architecture (the 32-bit ABI) kills the process.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile

# Calls nobody in the sandbox needs: each one denied outright.
DENIED = (
    # new programs
    "execve", "execveat",
    # the network, and any other socket
    "socket", "connect", "bind", "listen", "accept", "accept4",
    # files: creation, removal, renaming, links, metadata changes
    "creat", "mknod", "mknodat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename",
    "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate",
    "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown", "utime", "utimes",
    "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
    "fremovexattr", "memfd_create", "memfd_secret", "openat2", "open_by_handle_at",
    "name_to_handle_at", "fallocate",
    # other processes: tracing, memory, file descriptors
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd",
    "pidfd_send_signal", "kcmp", "process_madvise",
    # namespaces, mounts, identity
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "setuid", "setgid", "setreuid",
    "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups", "capset",
    # the kernel's administrative and rarely used surfaces
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "init_module", "finit_module",
    "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "syslog",
    "acct", "quotactl", "quotactl_fd", "personality", "sethostname", "setdomainname",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "ioperm", "iopl", "vhangup",
    "lookup_dcookie", "fanotify_init", "fanotify_mark", "inotify_init", "inotify_init1",
    "inotify_add_watch", "mbind", "migrate_pages", "move_pages", "set_mempolicy", "uselib",
    "ustat", "sysfs", "_sysctl", "nfsservctl", "vm86", "vm86old", "modify_ldt", "landlock_create_ruleset",
    "landlock_add_rule", "landlock_restrict_self",
    # System V and POSIX IPC: objects that would outlive the child and be seen by its siblings
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
    "semtimedop", "semctl", "ipc", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
    "mq_notify", "mq_getsetattr",
    # another process's I/O priority (a process's own is of no use to a run either)
    "ioprio_set",
)
# Calls that act on a process named by their first argument: allowed on the caller only (0). The
# whole 64-bit argument must be 0 (the kernel reads a 32-bit pid; high bits must not hide one).
SELF_ONLY = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr")
# fcntl/ioctl commands that make the kernel signal a chosen process or group when I/O is possible
# (F_SETSIG only picks the signal, but without an owner there is nobody else to send it to), and
# those that watch a file or hold it against others: a lease makes another process's open of the
# file wait for its holder (where the sandbox's user owns the server's files: no root server).
FCNTL_SIGNALS = (8, 10, 15, 1024, 1026)  # F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE, F_NOTIFY
IOCTL_SIGNALS = (0x8901, 0x8902, 0x5410)  # FIOSETOWN, SIOCSPGRP, TIOCSPGRP
LOW_32 = 0xFFFFFFFF  # the kernel reads these commands as 32-bit: high bits must not hide one
# open()/openat() flags that write: a file may be opened to read, never to write or create.
WRITE_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND)
# Added for forked children: no processes (threads only) and no signals.
CHILD_DENIED = ("fork", "vfork", "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                "socketpair")
CLONE_THREAD = 0x00010000


def _filter():
    import pyseccomp

    f = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    # A call of a foreign architecture ends the whole process, not just its thread (a thread left
    # behind would keep a killed child's socket open until its deadline).
    f.set_attr(pyseccomp.Attr.ACT_BADARCH, pyseccomp.KILL_PROCESS)
    return pyseccomp, f


def _deny(seccomp, f, names, err=errno.EPERM) -> None:
    for name in names:
        try:
            f.add_rule(seccomp.ERRNO(err), name)
        except (OSError, ValueError, RuntimeError):  # a call this kernel/architecture does not have
            pass


def template_filter():
    """The filter every sandboxed process carries (a pyseccomp ``SyscallFilter``)."""
    seccomp, f = _filter()
    _deny(seccomp, f, DENIED)
    for flag in WRITE_FLAGS:
        f.add_rule(seccomp.ERRNO(errno.EPERM), "open", seccomp.Arg(1, seccomp.MASKED_EQ, flag, flag))
        f.add_rule(seccomp.ERRNO(errno.EPERM), "openat", seccomp.Arg(2, seccomp.MASKED_EQ, flag, flag))
    _only_unix_pairs(seccomp, f)
    _only_self(seccomp, f)
    _no_signal_owners(seccomp, f)
    return f


def _rule(seccomp, f, name, *args) -> None:
    try:
        f.add_rule(seccomp.ERRNO(errno.EPERM), name, *args)
    except (OSError, ValueError, RuntimeError):  # a call this kernel/architecture does not have
        pass


def _only_unix_pairs(seccomp, f) -> None:
    """The template makes each child's connection to the server as a Unix socket pair."""
    _rule(seccomp, f, "socketpair", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))


def _only_self(seccomp, f) -> None:
    """Limits, CPUs and scheduling of the caller only; priority only PRIO_PROCESS of the caller
    (a child lowers its own priority for long runs; no CAP_SYS_NICE and RLIMIT_NICE 0 keep it from
    raising it)."""
    for name in SELF_ONLY:
        _rule(seccomp, f, name, seccomp.Arg(0, seccomp.NE, 0))
    _rule(seccomp, f, "setpriority", seccomp.Arg(0, seccomp.NE, os.PRIO_PROCESS))
    _rule(seccomp, f, "setpriority", seccomp.Arg(1, seccomp.NE, 0))


def _no_signal_owners(seccomp, f) -> None:
    """No descriptor may name a process (or group) to signal when it is ready: that is a kill by
    other means (SIGKILL to the template, SIGSTOP to the siblings)."""
    for cmd in FCNTL_SIGNALS:
        for name in ("fcntl", "fcntl64"):
            _rule(seccomp, f, name, seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, cmd))
    for cmd in IOCTL_SIGNALS:
        _rule(seccomp, f, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32, cmd))


def child_filter():
    """The filter a forked child adds before it reads its request."""
    seccomp, f = _filter()
    _deny(seccomp, f, CHILD_DENIED)
    # clone() only for threads; clone3's flags sit behind a pointer the filter cannot read, so it
    # answers ENOSYS and the C library falls back to clone().
    f.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    _deny(seccomp, f, ("clone3",), errno.ENOSYS)
    return f


def threads_filter():
    """The filter a child adds to all its threads once its watchdog thread runs: no more threads."""
    seccomp, f = _filter()
    _deny(seccomp, f, ("clone", "clone3"))
    return f


def seccomp_syscall() -> int:
    """This architecture's number of seccomp(2) (the sandbox loads the threads filter with it: the
    C library has no wrapper, and only that call applies a filter to every thread at once)."""
    import pyseccomp

    return pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "seccomp")


def to_bpf(f) -> bytes:
    """The filter as the raw BPF program ``prctl(PR_SET_SECCOMP)`` loads."""
    with tempfile.TemporaryFile() as tmp:
        f.export_bpf(tmp)
        tmp.seek(0)
        return tmp.read()


def compiled() -> dict[str, bytes]:
    """The filters as BPF bytes, by name."""
    return {"template": to_bpf(template_filter()), "child": to_bpf(child_filter()),
            "threads": to_bpf(threads_filter())}
