"""Workers run at the server's priority while no request waits for a place, and below it while
requests wait (so that the server's own work goes first then); either way a worker cannot climb
back above where it was put, nor change the priority of the sandbox's scheduling group (its
session's, which stays at the server's). Raw payloads in real sandboxed children read their own nice
value and their group's, as a program that got past the language layer would."""

from __future__ import annotations

import os
import threading
import time

from app.sandbox import template_process

from .pools import GROUP_NICE, make_pool

PROBE = GROUP_NICE + '''
import os, time
def change_group():
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("19")
    except OSError as e:
        return "refused: " + type(e).__name__
    return "done"
def lower_own(to):
    try:
        os.setpriority(os.PRIO_PROCESS, 0, to)
    except OSError as e:
        return "refused: " + type(e).__name__
    return "done"
own = os.getpriority(os.PRIO_PROCESS, 0)
group = group_nice()
tries = {"own": lower_own(own - 1) if own > SERVER else "not tried",
         "group": change_group() if group is not None else "not tried"}
result = {"own": own, "group": group, "tries": tries, "after": [os.getpriority(os.PRIO_PROCESS, 0),
                                                                group_nice()]}
'''
SLOW = "import time\ntime.sleep(SECONDS)\nresult = 1\n"


def probe(pool, client: str, **how) -> dict:
    server = os.getpriority(os.PRIO_PROCESS, 0)
    payload = PROBE.replace("SERVER", str(server))
    return pool.call("raw", payload, timeout=30, client=client, **how).value["result"]


def test_an_idle_pool_runs_its_worker_at_the_servers_priority(os_pool):
    out = probe(os_pool, "alone")
    assert out["own"] == os.getpriority(os.PRIO_PROCESS, 0)
    assert out["group"] in (None, 0)
    assert out["group"] is None or out["tries"]["group"].startswith("refused"), out


def test_work_done_ahead_runs_below_the_server_even_on_an_idle_pool(os_pool):
    server = os.getpriority(os.PRIO_PROCESS, 0)
    out = probe(os_pool, "ahead", if_idle=True)
    assert out["own"] == out["after"][0] == min(19, server + template_process.WORKER_NICE), out
    assert out["tries"]["own"].startswith("refused"), out
    assert out["group"] in (None, 0)


def test_while_requests_wait_workers_run_below_the_server_and_cannot_climb_back():
    server = os.getpriority(os.PRIO_PROCESS, 0)
    below = min(19, server + template_process.WORKER_NICE)
    outs: dict[str, object] = {}
    with make_pool("full", slots=1, reserved=0) as one:

        def call(name: str, payload: str) -> None:
            if payload == "probe":
                outs[name] = probe(one, name)
            else:
                outs[name] = one.call("raw", payload, timeout=30, client=name).value["result"]

        holder = threading.Thread(target=call, args=("holder", SLOW.replace("SECONDS", "1.5")))
        holder.start()
        while one.admission.snapshot()["running"] == 0:
            time.sleep(0.01)
        queued = [threading.Thread(target=call, args=(name, payload))
                  for name, payload in (("probe", "probe"), ("after", SLOW.replace("SECONDS", "0.1")))]
        for waiting, t in enumerate(queued, 1):  # the probe waits first: another still waits when it runs
            t.start()
            while one.admission.waiting() < waiting:
                time.sleep(0.01)
        for t in (holder, *queued):
            t.join(30)
        idle = probe(one, "later")  # nobody waits any more: back at the server's priority
    out = outs["probe"]
    assert out["own"] == out["after"][0] == below, out
    assert out["tries"]["own"].startswith("refused"), out
    if out["group"] is not None:  # where the kernel groups tasks by session
        assert out["group"] == out["after"][1] == 0, out
        assert out["tries"]["group"].startswith("refused"), out
    assert idle["own"] == server, idle
