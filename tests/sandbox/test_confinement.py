"""What a sandboxed child can learn of the machine (raw Python payloads in real children, as if the
language layer had fallen): the server's paths appear nowhere it can read them (command lines,
environment, its own path, the files it is shown), it is shown only the distributions a worker
imports, and the peer of its socket is the template (user 65534, a pid of the sandbox), not the
server."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from app.sandbox import confinement

from .pools import raw

ROOT = Path(__file__).resolve().parents[2]

LOOK = '''
import os, socket, stat, struct, sys
def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().replace(b"\\0", b" ").decode("utf-8", "replace")
    except OSError as e:
        return "unreadable: " + type(e).__name__
pids = [p for p in os.listdir("/proc") if p.isdigit()]
texts = {f"/proc/{p}/cmdline": read(f"/proc/{p}/cmdline") for p in pids}
texts.update({f"/proc/{p}/environ": read(f"/proc/{p}/environ") for p in pids})
texts["sys.path"] = " ".join(sys.path)
texts["executable"] = sys.executable + " " + sys.prefix + " " + sys.base_prefix
texts["cwd"] = os.getcwd()
texts["modules"] = " ".join(str(getattr(m, "__file__", "")) for m in list(sys.modules.values()))
peer = None
for name in os.listdir("/proc/self/fd"):
    fd = int(name)
    try:
        if fd > 2 and stat.S_ISSOCK(os.fstat(fd).st_mode):
            s = socket.socket(fileno=fd)
            peer = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            s.detach()
    except OSError:
        pass
site = "/usr/local/lib/gradviz-python/site-packages"
result = {"texts": texts, "peer": peer, "me": [os.getpid(), os.getppid(), os.getuid()],
          "site": sorted(os.listdir(site)), "root": sorted(os.listdir("/")),
          "host_paths": [p for p in HOST if os.path.exists(p)]}
'''


def host_paths() -> list[str]:
    """The server's own paths a worker should not learn."""
    paths = {str(ROOT), sys.prefix, sys.base_prefix, os.path.realpath(sys.executable),
             sysconfig.get_path("purelib"), str(Path.home())}
    return sorted(p for p in paths if p not in ("/", "/usr", "/usr/local"))


def look(pool) -> dict:
    return raw(pool, f"HOST = {host_paths()!r}\n" + LOOK)


def test_no_server_path_is_in_what_a_child_can_read(os_pool):
    seen = look(os_pool)
    for where, text in seen["texts"].items():
        for path in host_paths():
            assert path not in text, (where, path, text[:500])
    assert seen["host_paths"] == []  # none of them exists in the sandbox either
    assert "/usr/bin/bwrap --args" in seen["texts"]["/proc/1/cmdline"]  # its options: from a descriptor


def test_a_child_is_shown_only_the_distributions_it_imports(os_pool):
    seen = look(os_pool)
    names = {n.removesuffix(".py").removesuffix(".libs") for n in seen["site"]}
    assert names <= set(confinement.WORKER_PACKAGES), seen["site"]
    assert "numpy" in names
    own_site = "import os\nresult = os.listdir(os.path.dirname(os.__file__) + '/site-packages')"
    assert raw(os_pool, own_site) == []  # the interpreter's own site directory: hidden
    assert set(seen["root"]) <= {"usr", "lib", "lib64", "bin", "srv", "proc", "dev", "tmp"}, seen["root"]


def test_the_peer_of_a_childs_socket_is_the_template_not_the_server(os_pool):
    seen = look(os_pool)
    pid, uid, _ = seen["peer"]
    me, parent, my_uid = seen["me"]
    assert uid == my_uid == 65534
    assert pid == parent and pid != os.getpid()


def test_the_worker_packages_are_what_the_jobs_import():
    """The jobs' modules, imported as the sandbox does (no site module, the site directories on the
    path), load no third-party module but ``WORKER_PACKAGES``."""
    sites = [p for p in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")} if p]
    code = ("import sys\nimport app.worker.jobs as j, app.worker.execute, app.folding.ahead, "
            "app.mlp.boundary\nj.warm_up()\nsites = sys.argv[1:]\n"
            "files = [m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)]\n"
            "print(' '.join(sorted({f[len(s):].lstrip('/').split('/')[0] for f in files for s in sites"
            " if f.startswith(s)})))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sites), OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-S", "-c", code, *sites], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    imported = {n.removesuffix(".py") for n in out.stdout.split()}
    assert imported <= set(confinement.WORKER_PACKAGES), imported - set(confinement.WORKER_PACKAGES)
