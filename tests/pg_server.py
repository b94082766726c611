"""A throwaway PostgreSQL server for tests and benchmarks: 127.0.0.1, a random port, its
data in a temp dir, stopped (and the dir removed) afterwards.

The binaries come from Debian's `postgresql` package (`/usr/lib/postgresql/*/bin`, which
.ci/run installs when missing), from `$PATH`, or from the `pgserver` wheel (a test
dependency); a build with the `vector` extension (pgvector, which pgserver's has and
Debian's repositories here lack) is preferred, for the stores' semantic search.
PostgreSQL refuses to run as root, so under root (as in CI) the server runs as `nobody`
through `setpriv`, with a data dir that user owns.

`start()` returns a `PgServer` or raises `PgUnavailable` saying why; tests turn that into
a visible skip on a developer's machine and into a failure under CI (`CI=true`).

A watchdog process (this file run with `--watch`, in its own session so a Ctrl-C or a
signal to pytest's process group does not reach it) stops the server and removes its
data dir when the process that started it goes away without calling `stop()`, for
example a pytest killed with SIGKILL; it exits by itself when the server stops.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PgServer", "PgUnavailable", "start", "find_bin_dir", "has_pgvector", "in_ci"]


class PgUnavailable(RuntimeError):
    """No PostgreSQL server could be started here (with the reason)."""


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def find_bin_dir() -> Path | None:
    """A directory holding `initdb` and `postgres`."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(os.path.realpath(on_path)).parent))
    spec = importlib.util.find_spec("pgserver")  # located, not imported (its import has side effects)
    if spec is not None and spec.origin:
        candidates.append(str(Path(spec.origin).parent / "pginstall" / "bin"))
    usable = [Path(c) for c in candidates if (Path(c) / "initdb").exists() and (Path(c) / "postgres").exists()]
    # the stores' semantic search needs pgvector: a build that has it first (pgserver's does)
    usable.sort(key=lambda b: not has_pgvector(b))
    return usable[0] if usable else None


def has_pgvector(bin_dir: Path) -> bool:
    """Whether the PostgreSQL build at `bin_dir` ships the `vector` extension (pgvector)."""
    shares = [bin_dir.parent / "share" / "postgresql" / "extension", bin_dir.parent / "share" / "extension"]
    if str(bin_dir).startswith("/usr/lib/postgresql/"):
        shares.append(Path("/usr/share/postgresql") / bin_dir.parent.name / "extension")
    return any((d / "vector.control").exists() for d in shares)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    """A running server; `url(schema)` gives a URL whose tables live in a fresh schema."""

    port: int
    root: Path
    process: subprocess.Popen[bytes]
    _schemas: list[str] = field(default_factory=list)
    watchdog: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, schema: str | None = None) -> str:
        """A URL on a new, empty schema (`search_path`), so each test starts clean."""
        import psycopg

        schema = schema or f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        return f"{self.base_url}?options=-csearch_path%3D{schema}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.watchdog is not None:
            if self.watchdog.poll() is None:
                self.watchdog.terminate()
            self.watchdog.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie nobody reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def _is_server(pid: int, data: Path) -> bool:
    """`pid` is still our postgres (its command line names our data dir), not a reused pid."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return str(data).encode() in f.read()
    except OSError:
        return _alive(pid)


def watch(parent: int, server: int, root: Path, *, every: float = 0.5) -> None:
    """The watchdog's loop: when `parent` is gone (this process was handed to another
    parent), stop `server` (SIGINT: fast shutdown; SIGKILL after 15 s) and remove `root`.
    Returns when the server is gone."""
    import signal as sig

    sig.signal(sig.SIGINT, sig.SIG_IGN)  # a Ctrl-C meant for pytest; stop() ends it with SIGTERM
    sig.signal(sig.SIGHUP, sig.SIG_IGN)
    data = root / "data"
    while _alive(server):
        if os.getppid() == parent:
            time.sleep(every)
            continue
        if _is_server(server, data):
            os.kill(server, sig.SIGINT)
            deadline = time.monotonic() + 15
            while _alive(server) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _alive(server) and _is_server(server, data):
                os.kill(server, sig.SIGKILL)
        break
    if os.getppid() != parent:
        shutil.rmtree(root, ignore_errors=True)


def _start_watchdog(server: subprocess.Popen[bytes], root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--watch", str(os.getpid()), str(server.pid), str(root)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def _as_user() -> tuple[list[str], int | None, int | None]:
    """The command prefix (and uid/gid) to run the server unprivileged when we are root."""
    if os.geteuid() != 0:
        return [], None, None
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise PgUnavailable("running as root and `setpriv` (util-linux) is missing to drop to `nobody`")
    user = pwd.getpwnam("nobody")
    return [setpriv, f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"], user.pw_uid, user.pw_gid


def start(*, timeout: float = 60.0, bin_dir: Path | None = None) -> PgServer:
    """Start a server (from `bin_dir`, default `find_bin_dir()`); raises PgUnavailable (with
    why) when none can start here."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise PgUnavailable("psycopg is not installed (pip install -e '.[test]')") from None
    bin_dir = bin_dir or find_bin_dir()
    if bin_dir is None:
        raise PgUnavailable("no PostgreSQL binaries (apt-get install postgresql, or pip install pgserver)")
    prefix, uid, gid = _as_user()
    root = Path(tempfile.mkdtemp(prefix="retrograph-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if uid is not None:
        os.chmod(root, 0o755)
        os.chown(root, uid, gid)
        os.chown(sock, uid, gid)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    init = subprocess.run(
        [*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
         "--encoding=UTF8", "--no-sync"],
        capture_output=True, env=env, cwd=root,
    )
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise PgUnavailable(f"initdb failed: {init.stderr.decode(errors='replace').strip()[-400:]}")
    port = _free_port()
    log = open(root / "server.log", "wb")
    process = subprocess.Popen(
        [*prefix, str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-h", "127.0.0.1",
         "-k", str(sock), "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
         "-c", "max_connections=200"],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root,
    )
    log.close()
    server = PgServer(port=port, root=root, process=process, watchdog=_start_watchdog(process, root))
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            text = (root / "server.log").read_text(errors="replace")[-600:]
            shutil.rmtree(root, ignore_errors=True)
            raise PgUnavailable(f"postgres exited at start: {text}")
        try:
            with psycopg.connect(server.base_url, connect_timeout=2):
                return server
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                server.stop()
                raise PgUnavailable("postgres did not accept connections in time") from None
            time.sleep(0.1)


if __name__ == "__main__":  # the watchdog: pg_server.py --watch PARENT_PID SERVER_PID ROOT
    if len(sys.argv) == 5 and sys.argv[1] == "--watch":
        watch(int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
    else:
        sys.exit("usage: pg_server.py --watch PARENT_PID SERVER_PID ROOT")
