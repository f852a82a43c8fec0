"""The seccomp filters of the worker sandbox, compiled here with libseccomp (pyseccomp binds it).

They are built on the server, outside the sandbox, and sent to the template process as raw BPF
bytes, which it loads with one ``prctl`` (``lockdown.load_bpf``): the sandbox needs neither
libseccomp nor a writable place to find it.

Two filters, stacked (the kernel applies every filter a process has ever loaded):
- ``template``: for the template and, by inheritance, every process it forks. No new programs
  (execve), no sockets of any kind, no file creation or modification, no tracing or reading of
  other processes' memory, none of the kernel's administrative or rarely used attack surfaces.
- ``child``: added by each forked child before it reads its request. Also no processes
  (only threads), and no signals to anyone.

A refused call fails with EPERM (so a payload sees a clear ``PermissionError``); a call of a
foreign architecture (the 32-bit ABI) kills the process.
"""

from __future__ import annotations

import errno
import os
import tempfile

# Calls nobody in the sandbox needs: each one denied outright.
DENIED = (
    # new programs
    "execve", "execveat",
    # the network, and any other socket
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
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
)
# open()/openat() flags that write: a file may be opened to read, never to write or create.
WRITE_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND)
# Added for forked children: no processes (threads only) and no signals.
CHILD_DENIED = ("fork", "vfork", "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
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
    return f


def child_filter():
    """The filter a forked child adds before it reads its request."""
    seccomp, f = _filter()
    _deny(seccomp, f, CHILD_DENIED)
    # clone() only for threads; clone3's flags sit behind a pointer the filter cannot read, so it
    # answers ENOSYS and the C library falls back to clone().
    f.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    _deny(seccomp, f, ("clone3",), errno.ENOSYS)
    return f


def to_bpf(f) -> bytes:
    """The filter as the raw BPF program ``prctl(PR_SET_SECCOMP)`` loads."""
    with tempfile.TemporaryFile() as tmp:
        f.export_bpf(tmp)
        tmp.seek(0)
        return tmp.read()


def compiled() -> dict[str, bytes]:
    """Both filters as BPF bytes, by name."""
    return {"template": to_bpf(template_filter()), "child": to_bpf(child_filter())}
