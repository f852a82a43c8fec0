"""Escape attempts as raw Python, run inside a sandboxed child as if the language layer had fallen.

Each payload sets ``result = {"out": bool, "detail": str}``: ``out`` is True when the attempt got
what it wanted. Placeholders: {canary} (a file the server can read, outside what the sandbox
shows), {port} (a port the server's process listens on), {server_pid}, {code_file} (a file of the
project's own code, which the sandbox shows read-only).
"""

from __future__ import annotations

_TRY = '''
def attempt():
{body}
try:
    got = attempt()
    result = {{"out": bool(got), "detail": repr(got)[:300]}}
except BaseException as e:
    result = {{"out": False, "detail": type(e).__name__ + ": " + str(e)[:200]}}
'''


def payload(body: str, **values) -> str:
    """The payload for one attempt (``body`` is the body of a function returning what it got)."""
    lines = "\n".join("    " + line for line in body.strip("\n").splitlines())
    text = _TRY.format(body=lines)
    for key in ("canary", "port", "server_pid", "code_file"):
        text = text.replace("{" + key + "}", str(values.get(key, "")))
    return text


ATTEMPTS = {
    # ---- files outside the allow-list ----------------------------------------------------------------
    "read-canary": 'return open("{canary}").read()',
    "read-etc-passwd": 'return open("/etc/passwd").read()',
    "read-etc-shadow": 'return open("/etc/shadow").read()',
    "read-root-home": 'import os, sys\nreturn [p for p in os.listdir("/root") if not sys.base_prefix.startswith("/root/" + p)]',
    "read-checkout-readme": 'import os\nreturn open(os.path.join(os.path.dirname(os.path.dirname("{code_file}")), '
                            '"..", "README.md")).read()',
    "read-git-config": 'import os\nreturn open(os.path.join(os.path.dirname("{code_file}"), "..", "..", ".git", '
                       '"config")).read()',
    "read-server-environ": 'return open("/proc/{server_pid}/environ").read()',
    "read-pid1-environ": 'return open("/proc/1/environ").read()',
    "read-host-ssh-keys": 'import glob\nreturn glob.glob("/etc/ssh/*key*") + glob.glob("/root/.ssh/*")',
    # ---- writing: create, truncate, delete ---------------------------------------------------------
    "create-in-tmp": 'f = open("/tmp/pwned", "w")\nf.write("x")\nf.close()\nreturn True',
    "create-in-dev-shm": 'f = open("/dev/shm/pwned", "w")\nf.write("x")\nf.close()\nreturn True',
    "create-next-to-code": 'import os\nfd = os.open(os.path.dirname("{code_file}") + "/pwned.py", '
                           'os.O_CREAT | os.O_WRONLY)\nreturn fd >= 0',
    "create-beside-canary": 'import os\nfd = os.open("{canary}.new", os.O_CREAT | os.O_WRONLY)\nreturn fd >= 0',
    "truncate-code": 'import os\nos.truncate("{code_file}", 0)\nreturn True',
    "open-code-for-append": 'f = open("{code_file}", "a")\nf.write("#")\nf.close()\nreturn True',
    "open-code-rw": 'import os\nreturn os.open("{code_file}", os.O_RDWR) >= 0',
    "delete-code": 'import os\nos.unlink("{code_file}")\nreturn True',
    "rename-code": 'import os\nos.rename("{code_file}", "{code_file}.bak")\nreturn True',
    "mkdir-tmp": 'import os\nos.mkdir("/tmp/d")\nreturn True',
    "chmod-code": 'import os\nos.chmod("{code_file}", 0o777)\nreturn True',
    "symlink-tmp": 'import os\nos.symlink("/", "/tmp/root")\nreturn True',
    "memfd": 'import os\nreturn os.memfd_create("x") >= 0',
    # ---- the network ---------------------------------------------------------------------------------
    "connect-server-port": 'import socket\ns = socket.create_connection(("127.0.0.1", {port}), timeout=2)\n'
                           'return s.getpeername()',
    "connect-server-port-ipv6": 'import socket\ns = socket.create_connection(("::1", {port}), timeout=2)\n'
                                'return True',
    "udp-socket": 'import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n'
                  's.sendto(b"x", ("127.0.0.1", {port}))\nreturn True',
    "unix-socket": 'import socket\ns = socket.socket(socket.AF_UNIX)\nreturn True',
    "socketpair": 'import socket\nreturn len(socket.socketpair()) == 2',
    "raw-socket-via-syscall": 'import ctypes\nlibc = ctypes.CDLL(None)\nreturn libc.syscall(41, 2, 1, 0) >= 0',
    # ---- running programs ----------------------------------------------------------------------------
    "os-system-id": 'import os\nreturn os.system("id > /dev/null") == 0',
    "subprocess-id": 'import subprocess\nreturn subprocess.run(["id"], capture_output=True).stdout',
    "execv-id": 'import os\nos.execv("/usr/bin/id", ["id"])\nreturn True',
    "posix-spawn": 'import os\nreturn os.posix_spawn("/usr/bin/id", ["id"], {}) > 0',
    "fork": 'import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nreturn True',
    "execve-via-syscall": 'import ctypes\nlibc = ctypes.CDLL(None)\n'
                          'return libc.syscall(59, b"/usr/bin/id", None, None) == 0',
    # ---- other processes -----------------------------------------------------------------------------
    "see-server-process": 'import os\nreturn [p for p in os.listdir("/proc") if p.isdigit() and '
                          '("pytest" in open("/proc/" + p + "/cmdline").read() or '
                          '"uvicorn" in open("/proc/" + p + "/cmdline").read())]',
    "signal-server": 'import os\nos.kill({server_pid}, 0)\nreturn True',
    "kill-template": 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nreturn True',
    "kill-pid-1": 'import os, signal\nos.kill(1, signal.SIGTERM)\nreturn True',
    "read-template-memory": 'import os\nf = open("/proc/%d/mem" % os.getppid(), "rb")\nreturn len(f.read(1)) > 0',
    "ptrace-template": 'import ctypes, os\nlibc = ctypes.CDLL(None)\nreturn libc.ptrace(16, os.getppid(), 0, 0) == 0',
    "process-vm-readv": 'import ctypes, os\nlibc = ctypes.CDLL(None)\n'
                        'return libc.syscall(310, os.getppid(), 0, 0, 0, 0, 0) >= 0',
    "template-control-socket": 'import os, stat\nreturn [f for f in os.listdir("/proc/self/fd") if int(f) > 2 '
                               'and stat.S_ISSOCK(os.fstat(int(f)).st_mode)][1:]',
    # ---- privileges and the kernel -------------------------------------------------------------------
    "become-root": 'import os\nos.setuid(0)\nreturn os.getuid() == 0',
    "is-root": 'import os\nreturn os.getuid() == 0 or os.geteuid() == 0',
    "new-user-namespace": 'import ctypes\nlibc = ctypes.CDLL(None)\nreturn libc.unshare(0x10000000) == 0',
    "mount-tmpfs": 'import ctypes\nlibc = ctypes.CDLL(None)\n'
                   'return libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0',
    "io-uring": 'import ctypes\nlibc = ctypes.CDLL(None)\nbuf = ctypes.create_string_buffer(120)\n'
                'return libc.syscall(425, 8, buf) >= 0',
    "bpf": 'import ctypes\nlibc = ctypes.CDLL(None)\nreturn libc.syscall(321, 0, 0, 0) >= 0',
    "x32-abi-execve": 'import ctypes\nlibc = ctypes.CDLL(None)\n'
                      'return libc.syscall(0x40000000 | 520, b"/usr/bin/id", None, None) == 0',
    "capabilities": 'return [l for l in open("/proc/self/status") if l.startswith("CapEff") and '
                    'l.split()[1] != "0000000000000000"]',
    "allocate-2gb": 'b = bytearray(2 * 2**30)\nreturn len(b)',
}
