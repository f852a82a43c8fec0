"""A sandboxed child cannot act on another process: not the template, not a sibling (a spare, or a
worker another client is using). Raw Python payloads in real sandboxed children (as if the language
layer had fallen) try to signal, limit, slow, pin or share memory with the others; each attempt must
be refused, and the other processes must go on as before."""

from __future__ import annotations

import os
import socket
import struct
import threading
import time

import pytest

from app.sandbox import WorkerProtocolError, channel, pool, template_process

from .pools import GROUP_NICE, make_pool, raw

# What a child sees of the template (its parent) and of its siblings (the template's other children),
# as the payloads below find them.
FIND = '''
import os
def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()
def siblings():
    me, parent = os.getpid(), os.getppid()
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != me:
            try:
                if int(stat(p)[1]) == parent:
                    out.append(int(p))
            except OSError:
                pass
    return out
def limits(pid):
    with open(f"/proc/{pid}/limits") as f:
        return f.read()
def state(pid):
    s = stat(pid)  # fields from the 3rd on: nice is the 19th, policy the 41st
    with open(f"/proc/{pid}/status") as f:
        cpus = [l.split()[1] for l in f if l.startswith("Cpus_allowed_list")]
    return {"nice": int(s[16]), "policy": int(s[38]), "rt": int(s[37]), "cpus": cpus, "limits": limits(pid)}
def attempt(results, name, fn):
    try:
        results[name] = repr(fn())
    except OSError as e:
        results[name] = "refused: " + type(e).__name__
'''


def refused(results: dict) -> list[str]:
    """The attempts that were not refused with an OSError."""
    return [f"{k}: {v}" for k, v in results.items() if not v.startswith("refused")]


def still_serving(p: pool.SandboxPool, restarts: int) -> None:
    """The template is the same one and every place still gets a working child (none stopped)."""
    for i in range(p.settings.places + 1):
        assert raw(p, f"result = {i} * 2", timeout=15) == i * 2
    assert p.restarts == restarts and p._template.alive()


# ---- signals by other means than kill() --------------------------------------------------------------

SIGNAL_BY_OWNER = FIND + '''
import fcntl, signal, struct, ctypes
libc = ctypes.CDLL(None, use_errno=True)
results = {}
def owner(target, sig, cmd=fcntl.F_SETOWN, arg=None):
    r, w = os.pipe()
    fcntl.fcntl(r, cmd, target if arg is None else arg)
    fcntl.fcntl(r, 10, sig)  # F_SETSIG
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(w, b"x")
    return "signal sent"
def sys(nr, *args):
    if libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args]) != 0:
        raise OSError(ctypes.get_errno(), "refused")
    return "done"
def raw_fcntl(cmd, arg):
    r, w = os.pipe()
    return sys(72, r, cmd, arg)
def ioctl_owner(cmd, target):
    import array
    r, w = os.pipe()
    return fcntl.ioctl(r, cmd, array.array("i", [target]))
def socket_owner(target):
    import socket
    a, b = socket.socketpair()
    return fcntl.fcntl(a, fcntl.F_SETOWN, target)
parent, sibs = os.getppid(), siblings()
attempt(results, "setown-template-sigkill", lambda: owner(parent, signal.SIGKILL))
attempt(results, "setown-group-sigstop", lambda: owner(-os.getpgrp(), signal.SIGSTOP))
for s in sibs[:2]:
    attempt(results, f"setown-sibling-{s}-sigstop", lambda: owner(s, signal.SIGSTOP))
attempt(results, "setown-ex-template", lambda: owner(0, signal.SIGKILL, 15, struct.pack("ii", 1, parent)))
attempt(results, "setsig-alone", lambda: raw_fcntl(10, signal.SIGKILL))
attempt(results, "lease", lambda: fcntl.fcntl(os.open(__import__("os").__file__, os.O_RDONLY), 1024, 0))
attempt(results, "dnotify", lambda: fcntl.fcntl(os.open("/tmp", os.O_RDONLY), 1026, 0x80000001))
attempt(results, "setown-high-bits", lambda: raw_fcntl((1 << 32) | 8, parent))
attempt(results, "setsig-high-bits", lambda: raw_fcntl((1 << 32) | 10, signal.SIGKILL))
attempt(results, "fiosetown", lambda: ioctl_owner(0x8901, parent))
attempt(results, "siocspgrp", lambda: ioctl_owner(0x8902, parent))
attempt(results, "tiocspgrp", lambda: ioctl_owner(0x5410, os.getpgrp()))
attempt(results, "kill-template", lambda: os.kill(parent, signal.SIGKILL))
attempt(results, "killpg", lambda: os.killpg(os.getpgrp(), signal.SIGSTOP))
attempt(results, "tgkill-sibling", lambda: sys(234, sibs[0], sibs[0], signal.SIGSTOP) if sibs else "none")
attempt(results, "sigqueue", lambda: sys(129, parent, signal.SIGKILL, 0))
attempt(results, "socketpair-for-owner", lambda: socket_owner(parent))
import time
time.sleep(0.2)
result = {"results": results, "siblings": len(sibs), "parent": stat(parent)[0]}
'''


def test_no_signal_reaches_the_template_or_a_sibling_by_a_descriptors_owner(os_pool):
    restarts = os_pool.restarts
    out = raw(os_pool, SIGNAL_BY_OWNER)
    assert out["siblings"] >= 1  # the spares are there to aim at
    assert not refused(out["results"]), out["results"]
    assert out["parent"] in ("S", "R")  # not stopped (T)
    still_serving(os_pool, restarts)


# ---- limits, priority, CPUs and scheduling of other processes ------------------------------------------

OTHERS_SETTINGS = FIND + '''
import ctypes, resource
libc = ctypes.CDLL(None, use_errno=True)
def sys(nr, *args):
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    if libc.syscall(ctypes.c_long(nr), *args) != 0:
        raise OSError(ctypes.get_errno(), "refused")
    return "done"
results = {}
import time
time.sleep(0.3)  # the spare forked for the next call settles (its limits are set as it starts)
parent, sibs = os.getppid(), siblings()
target = sibs[0] if sibs else parent
before = {pid: state(pid) for pid in (parent, target)}
mb64 = 64 * 2**20
attempt(results, "prlimit-sibling-as", lambda: resource.prlimit(target, resource.RLIMIT_AS, (mb64, mb64)))
attempt(results, "prlimit-template-nproc", lambda: resource.prlimit(parent, resource.RLIMIT_NPROC, (1, 1)))
attempt(results, "prlimit-high-bits", lambda: sys(302, (1 << 32) | target, 9, None, None))
attempt(results, "setpriority-user", lambda: os.setpriority(os.PRIO_USER, 65534, 19))
attempt(results, "setpriority-user-self", lambda: os.setpriority(os.PRIO_USER, 0, 19))
attempt(results, "setpriority-group", lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
attempt(results, "setpriority-template", lambda: os.setpriority(os.PRIO_PROCESS, parent, 19))
attempt(results, "setpriority-sibling", lambda: os.setpriority(os.PRIO_PROCESS, target, 19))
attempt(results, "setpriority-high-bits", lambda: sys(141, 0, (1 << 32) | parent, 19))
attempt(results, "affinity-template", lambda: os.sched_setaffinity(parent, {0}))
attempt(results, "affinity-sibling", lambda: os.sched_setaffinity(target, {0}))
zero = os.sched_param(0)
attempt(results, "sched-idle-template", lambda: os.sched_setscheduler(parent, os.SCHED_IDLE, zero))
attempt(results, "sched-batch-sibling", lambda: os.sched_setscheduler(target, os.SCHED_BATCH, zero))
attempt(results, "sched-param-template", lambda: os.sched_setparam(parent, os.sched_param(0)))
attr = (ctypes.c_uint32 * 14)(56, 5)  # struct sched_attr: its size (56), SCHED_IDLE
attempt(results, "sched-setattr-template", lambda: sys(314, parent, attr, 0))
attempt(results, "ioprio-idle-template", lambda: sys(251, 1, parent, 3 << 13))
attempt(results, "ioprio-idle-self", lambda: sys(251, 1, 0, 3 << 13))
after = {pid: state(pid) for pid in (parent, target)}
own = os.getpriority(os.PRIO_PROCESS, 0)
os.setpriority(os.PRIO_PROCESS, 0, 10)  # what a long run does: lower its own priority
os.sched_setaffinity(0, os.sched_getaffinity(0))  # its own CPUs: allowed
resource.prlimit(0, resource.RLIMIT_CPU)
result = {"results": results, "same": before == after, "before": before, "after": after,
          "own": [own, os.getpriority(os.PRIO_PROCESS, 0)]}
'''


def test_no_child_changes_the_limits_priority_or_cpus_of_another(os_pool):
    restarts = os_pool.restarts
    out = raw(os_pool, OTHERS_SETTINGS)
    assert not refused(out["results"]), out["results"]
    assert out["same"], (out["before"], out["after"])
    assert out["own"][1] == 10  # a child still lowers its own priority for long runs
    still_serving(os_pool, restarts)


# ---- System V and POSIX IPC ------------------------------------------------------------------------------

IPC = FIND + '''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def call(fn, *args):
    res = fn(*args)
    if res == -1:
        raise OSError(ctypes.get_errno(), "refused")
    return res
results = {}
IPC_CREAT = 0o1000
attempt(results, "shmget", lambda: call(libc.shmget, 0, 4096, IPC_CREAT | 0o666))
attempt(results, "shmget-key", lambda: call(libc.shmget, 0x6776, 4096, IPC_CREAT | 0o666))
attempt(results, "shmat", lambda: call(libc.syscall, 30, 0, None, 0))
attempt(results, "shmctl", lambda: call(libc.syscall, 31, 0, 2, None))
attempt(results, "msgget", lambda: call(libc.msgget, 0x6776, IPC_CREAT | 0o666))
attempt(results, "msgsnd", lambda: call(libc.syscall, 69, 0, None, 0, 0))
attempt(results, "semget", lambda: call(libc.semget, 0x6776, 1, IPC_CREAT | 0o666))
attempt(results, "semop", lambda: call(libc.syscall, 65, 0, None, 0))
attempt(results, "mq_open", lambda: call(libc.syscall, 240, b"gv", 0o100 | 2, 0o666, None))
attempt(results, "mq_unlink", lambda: call(libc.syscall, 241, b"gv"))
attempt(results, "mq_notify", lambda: call(libc.syscall, 244, 0, None))
attempt(results, "shm_open", lambda: open("/dev/shm/gv", "w"))
def listed():
    out = {}
    for kind in ("shm", "msg", "sem"):
        try:
            with open("/proc/sysvipc/" + kind) as f:
                out[kind] = len(f.readlines()) - 1
        except OSError:
            out[kind] = 0
    return out
result = {"results": results, "listed": listed()}
'''


def test_no_ipc_object_is_made_for_a_sibling_to_find(os_pool):
    out = raw(os_pool, IPC)
    assert not refused(out["results"]), out["results"]
    later = raw(os_pool, IPC)  # a fresh child, as another client's would be
    assert later["listed"] == {"shm": 0, "msg": 0, "sem": 0}, later["listed"]


# ---- threads and processes ---------------------------------------------------------------------------------

THREADS = '''
import os, threading, time, ctypes
started = []
try:
    for i in range(1000):
        t = threading.Thread(target=time.sleep, args=(5,), daemon=True)
        t.start()
        started.append(t)
except RuntimeError as e:
    error = str(e)
else:
    error = None
libc = ctypes.CDLL(None, use_errno=True)
# clone(CLONE_VM | CLONE_THREAD | CLONE_SIGHAND) straight, and clone3: both refused
clone = libc.syscall(56, 0x00010900, None, None, None, 0)
clone3 = libc.syscall(435, None, 0)
with open("/proc/self/status") as f:
    threads = [int(l.split()[1]) for l in f if l.startswith("Threads:")][0]
with open("/proc/self/limits") as f:
    nproc = [l.split()[2:4] for l in f if l.startswith("Max processes")][0]
import resource
try:
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    resource.setrlimit(resource.RLIMIT_NPROC, (hard + 1, hard + 1))
    raised = True
except (ValueError, OSError):
    raised = False
result = {"started": len(started), "error": error, "threads": threads, "clone": clone, "clone3": clone3,
          "nproc": nproc, "raised": raised}
'''

# Code run by the watchdog thread (which existed before the filter): it must be refused too.
THREAD_FROM_WATCHDOG = '''
import os, threading, time
seen = {}
real = os.setpriority
def hijacked(*args):
    try:
        threading.Thread(target=time.sleep, args=(1,), daemon=True).start()
        seen["watchdog"] = "started a thread"
    except RuntimeError as e:
        seen["watchdog"] = "refused: " + str(e)
    return real(*args)
os.setpriority = hijacked
time.sleep(1.0)  # a long run: the watchdog lowers the run's priority (and calls the hijacked function)
os.setpriority = real
result = seen
'''


def test_a_child_starts_no_thread_beyond_its_watchdog(os_pool):
    out = raw(os_pool, THREADS)
    assert out["started"] == 0 and out["error"], out
    assert out["threads"] == 2  # the run's thread and the watchdog
    assert out["clone"] == -1 and out["clone3"] == -1
    tp = template_process
    expected = max(tp.MIN_PROCESSES, tp.PROCESSES_PER_PLACE * os_pool.settings.places)
    assert out["nproc"] == [str(expected)] * 2 and not out["raised"]
    assert raw(os_pool, THREAD_FROM_WATCHDOG, timeout=10) == {"watchdog": "refused: can't start new thread"}


def test_numpy_still_computes_with_one_thread(os_pool):
    src = "a = torch.ones(300, 300)\nb = (a @ a).sum()\nprint(b)"
    out = os_pool.call("run_summary", src, timeout=30).value
    assert out["error"] is None and out["stdout"].startswith("tensor(27000000")


# ---- priority ---------------------------------------------------------------------------------------------

NICE = FIND + GROUP_NICE + '''
import resource
results = {}
own = os.getpriority(os.PRIO_PROCESS, 0)
parent = os.getppid()
template_before = state(parent)["nice"]
attempt(results, "lower-own-nice", lambda: os.setpriority(os.PRIO_PROCESS, 0, own - 1))
attempt(results, "nice-minus-one", lambda: os.nice(-1))
attempt(results, "nice-template", lambda: os.setpriority(os.PRIO_PROCESS, parent, 0))
try:
    resource.setrlimit(resource.RLIMIT_NICE, (40, 40))
except ValueError:
    results["raise-rlimit-nice"] = "refused: ValueError"
def set_group_nice():  # 19: every sibling (other clients' workers) would crawl
    with open("/proc/self/autogroup", "w") as f:
        f.write("19")
    return group_nice()
group = group_nice()
if group is not None:
    attempt(results, "change-group-nice", set_group_nice)
result = {"results": results, "own": own, "after": os.getpriority(os.PRIO_PROCESS, 0),
          "template": template_before,
          "template_after": state(parent)["nice"], "rlimit": resource.getrlimit(resource.RLIMIT_NICE),
          "group": [group, group_nice()]}
'''


def test_workers_run_below_the_server_and_cannot_climb_back():
    # a pool whose workers always run below the server (by default only while requests wait:
    # tests/sandbox/test_priority.py)
    with make_pool("full", nice_when_waiting=0) as below:
        out = below.call("raw", NICE, timeout=30, client="nice").value["result"]  # a client not heavy
    server = os.getpriority(os.PRIO_PROCESS, 0)
    assert out["template"] == out["template_after"] == server
    assert out["own"] == out["after"] == min(19, server + template_process.WORKER_NICE)
    assert out["rlimit"] == [0, 0]
    if out["group"][0] is not None:  # the sandbox's session: one share against the server's session
        assert out["group"] == [0, 0]
    assert not refused(out["results"]), out["results"]


# ---- frames ----------------------------------------------------------------------------------------------

DEEP = 100_000


def test_a_deeply_nested_frame_header_is_a_channel_error():
    a, b = socket.socketpair()
    with a, b:
        head = b"[" * DEEP + b"]" * DEEP
        a.sendall(struct.pack(">I", len(head)) + head)
        with pytest.raises(channel.ChannelError, match="could not be parsed"):
            channel.Reader(b, 0).read(time.monotonic() + 10)


NESTED_REPLY = f'''
import os, socket, stat, struct
head = b"[" * {DEEP} + b"]" * {DEEP}
for name in os.listdir("/proc/self/fd"):
    fd = int(name)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:  # the listing's own descriptor, closed by now
        continue
    if fd > 2 and stat.S_ISSOCK(mode):
        socket.socket(fileno=fd).sendall(struct.pack(">I", len(head)) + head)
        break
import time
time.sleep(30)
'''


@pytest.mark.parametrize("mode", ["os", "bare"])
def test_a_worker_sending_a_deeply_nested_header_is_killed(mode, os_pool, bare_pool):
    p = os_pool if mode == "os" else bare_pool
    with pytest.raises(WorkerProtocolError, match="could not be parsed"):
        p.call("raw", NESTED_REPLY, timeout=20)
    assert raw(p, "result = 'alive'") == "alive"


# ---- workers kept for their clients ----------------------------------------------------------------------


def test_kept_workers_are_bounded_and_reaped_while_idle():
    p = make_pool("language-only", slots=1, reserved=1)
    try:
        p.settings.keep_idle_s = 1.0
        p.settings.kept = 3
        for i in range(8):
            p.call("raw", "result = 1", timeout=30, keep_for=f"client{i}|x", client=f"client{i}")
            assert p.stats()["kept"] <= 3
        assert p.stats()["kept"] == 3  # more clients than places: each of the last three keeps its own
        deadline = time.monotonic() + 15
        while p.stats()["kept"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert p.stats()["kept"] == 0  # gone without any call
    finally:
        p.close()


def test_spares_come_back_after_the_template_is_replaced():
    p = make_pool("language-only", slots=1, reserved=0)
    try:
        done = [raw(p, f"result = {i}") for i in range(3)]
        p._template.proc.kill()
        p._template.proc.wait(10)
        done.append(raw(p, "result = 3"))
        assert done == [0, 1, 2, 3] and p.restarts == 1
        assert threading.active_count() < 50
    finally:
        p.close()
