"""Starts a bench server script as a process forked from one that has already imported the MCP
SDK: `python forkserver.py SCRIPT ARGS...` behaves as `python SCRIPT ARGS...` (the same stdin,
stdout, stderr, environment, working folder and exit code), without paying the SDK's import
(about 0.75 s of CPU per start with mcp 2.x, most of the study's time: its ~400 server starts).
`python forkserver.py --preload MODULE,... SCRIPT ARGS...` preloads those modules instead (an
MCP adapter's stack, whose import costs 1–3 s of CPU per start); a module that starts a Python
thread when imported (crewai does) must not be preloaded, as a forked child has no threads but
its own: CrewAI's rows preload its dependencies instead (chromadb, numpy, pydantic, …), none of
which starts a Python thread. numpy's OpenBLAS starts one native thread at import; a forked
child starts its own when it needs one (a matrix product in a forked child runs, checked).

Each start is a fresh process that runs SCRIPT from the top as `__main__`; what it shares with
the others is only the SDK's imported modules, as `multiprocessing`'s forkserver shares them.
The study measures what a server does with calls, never its start-up, so nothing it records
changes (tests/it/stacks.rs regenerates the committed results byte for byte through it).

The first start spawns the fork server (detached, its own session); it listens on a socket in a
folder only this user can open, and ends once it has had nothing to do for IDLE_SECONDS (its
socket's name goes first, so a later start spawns a new one). This
launcher hands over its three standard streams, waits for the script's exit and exits with its
code; if the launcher is killed, the fork server kills the script (the caller's kill of the
launcher's process group reaches the script that way).
"""

import array
import fcntl
import hashlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import tempfile
import time

# What every bench server imports (mcp_server.py, mcp_server_lowlevel.py); loaded once.
PRELOAD = ["anyio", "mcp_types", "mcp.server.lowlevel", "mcp.server.mcpserver", "mcp.server.stdio"]
IDLE_SECONDS = 10
START_SECONDS = 60
MAX_REQUEST = 1 << 20


def socket_path(preload: list) -> str:
    """One fork server per interpreter, environment (a venv's python resolves to its base
    interpreter's file), list of preloaded modules and copy of this file, in a folder of this
    user's."""
    folder = os.path.join(tempfile.gettempdir(), f"driftlab-forkserver-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        sys.exit(f"forkserver.py: {folder} is not a folder only this user can open")
    key = "\0".join(
        [sys.executable, sys.prefix, ",".join(preload), os.path.realpath(__file__), str(os.stat(__file__).st_mtime_ns)]
    )
    return os.path.join(folder, hashlib.sha256(key.encode()).hexdigest()[:20] + ".sock")


# The launcher: this process, started by the caller in the script's place.


def launch(preload: list, script_argv: list) -> None:
    path = socket_path(preload)
    conn = connect_or_start(path, preload)
    request = json.dumps({"argv": script_argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    fds = array.array("i", [0, 1, 2])
    conn.sendmsg([struct.pack("!I", len(request)), request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    # The script holds the streams now; the launcher keeps stderr for its own errors only.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            sys.exit("forkserver.py: the fork server ended before the script did")
        answer += chunk
    os._exit(int(answer))


def connect_or_start(path: str, preload: list) -> socket.socket:
    conn = try_connect(path)
    if conn is not None:
        return conn
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        conn = try_connect(path)
        if conn is not None:
            return conn
        if os.path.exists(path):
            os.unlink(path)  # left by a fork server that was killed
        spawn_detached(path, preload)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            conn = try_connect(path)
            if conn is not None:
                return conn
            time.sleep(0.01)
    sys.exit(f"forkserver.py: the fork server at {path} did not start in {START_SECONDS} s")


def try_connect(path: str):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        return conn
    except OSError:
        conn.close()
        return None


def spawn_detached(path: str, preload: list) -> None:
    """Forks twice, so the fork server is no child of the launcher: a caller that ends the
    launcher's descendants when a session closes must not end the fork server with it."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                serve_argv = [sys.executable, os.path.abspath(__file__), "--serve", path, ",".join(preload)]
                os.execv(sys.executable, serve_argv)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


# The fork server.


def serve(path: str, preload: list) -> None:
    for module in preload:
        __import__(module)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    mine = os.stat(path).st_ino
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "reap")
    running = {}  # pid -> the launcher's connection
    idle_since = time.monotonic()
    closing_at = None  # once idle: the socket's name is gone, and this is when it stops listening
    while running or closing_at is None or time.monotonic() < closing_at:
        if closing_at is None and not running and time.monotonic() - idle_since >= IDLE_SECONDS:
            # No new launcher finds this server once its name is gone; one that connected just
            # before is still accepted during a grace second, never refused.
            forget(path, mine)
            closing_at = time.monotonic() + 1.0
        for key, _ in selector.select(timeout=0.2 if closing_at else 1.0):
            if key.data == "accept":
                conn, _ = listener.accept()
                pid = start(conn, listener, selector, wake_read, wake_write, running)
                if pid is not None:
                    running[pid] = conn
                    selector.register(conn, selectors.EVENT_READ, pid)
            elif key.data == "reap":
                os.read(wake_read, 4096)
            else:
                # The launcher hung up (it was killed): its script goes with it.
                if not key.fileobj.recv(1):
                    selector.unregister(key.fileobj)
                    kill(key.data)
        reap(running, selector)
        if running:
            idle_since = time.monotonic()
    listener.close()


def forget(path: str, inode: int) -> None:
    """Removes the socket's name, unless it names another fork server's socket by now."""
    try:
        if os.stat(path).st_ino == inode:
            os.unlink(path)
    except FileNotFoundError:
        pass


def start(conn, listener, selector, wake_read, wake_write, running):
    """Reads a launcher's request and forks its script; None if the request is unreadable."""
    try:
        head, fds = receive(conn, 4)
        (size,) = struct.unpack("!I", head)
        if size > MAX_REQUEST:
            raise ValueError("request too large")
        body = b""
        while len(body) < size:
            chunk = conn.recv(size - len(body))
            if not chunk:
                raise ValueError("request cut short")
            body += chunk
        request = json.loads(body)
    except (OSError, ValueError, struct.error) as error:
        conn.close()
        print(f"forkserver.py: a bad request: {error}", file=sys.stderr)
        return None
    pid = os.fork()
    if pid == 0:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        selector.close()
        listener.close()
        for other in running.values():
            other.close()
        conn.close()
        os.close(wake_read)
        os.close(wake_write)
        run_script(request, fds)
    for fd in fds:
        os.close(fd)
    return pid


def receive(conn, size):
    fds = array.array("i")
    data, ancillary, _, _ = conn.recvmsg(size, socket.CMSG_LEN(3 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    if len(data) != size or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("no streams in the request")
    return data, list(fds)


def run_script(request, fds) -> None:
    """In the forked child: becomes `python SCRIPT ARGS...` and never returns."""
    import atexit
    import runpy
    import traceback

    code = 0
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        script = request["argv"][0]
        sys.argv = list(request["argv"])
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - what Python itself does with an uncaught exception
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def reap(running, selector) -> None:
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = running.pop(pid, None)
        if conn is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        try:
            selector.unregister(conn)
        except (KeyError, ValueError):
            pass
        try:
            conn.sendall(b"%d\n" % (code if code >= 0 else 128 - code))
        except OSError:
            pass
        conn.close()


def kill(pid) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], [m for m in sys.argv[3].split(",") if m])
    elif len(sys.argv) >= 4 and sys.argv[1] == "--preload":
        launch([m for m in sys.argv[2].split(",") if m], sys.argv[3:])
    elif len(sys.argv) >= 2 and sys.argv[1] != "--preload":
        launch(PRELOAD, sys.argv[1:])
    else:
        sys.exit("usage: python forkserver.py [--preload MODULE,...] SCRIPT [ARGS...]")
