"""Starts `aicc serve` for a session of Python work, or connects to a running one.

``AiccServer.start("swarm")`` runs ``npx aicc serve swarm --port 0`` (or the command given), waits
for its "listening on URL" line and stops it by its PID on ``stop()`` or at the end of a ``with``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import threading
from collections.abc import Sequence
from types import TracebackType

from .client import ServeClient
from .errors import AiccError

_LISTENING = re.compile(r"listening on (\S+)")


class AiccServer:
    """A running `aicc serve`: its ``url`` and a ``client`` for it; started here or found running."""

    def __init__(self, url: str, process: subprocess.Popen[str] | None = None, key: str | None = None) -> None:
        self.url = url
        self.process = process
        self.client = ServeClient(url, key=key)

    @classmethod
    def connect(cls, url: str, key: str | None = None) -> AiccServer:
        """One already running at `url`; ``stop()`` leaves it running."""
        server = cls(url, key=key)
        server.client.health()
        return server

    @classmethod
    def start(
        cls,
        world: str,
        *,
        command: Sequence[str] | None = None,
        args: Sequence[str] = (),
        cwd: str | None = None,
        timeout_s: float = 60.0,
        key: str | None = None,
    ) -> AiccServer:
        """Runs ``COMMAND serve WORLD --port 0 ARGS`` and returns once it listens.

        The command is ``npx --yes --package aicc-capsule aicc`` unless given, or named by the
        environment variable ``AICC_COMMAND`` (e.g. ``node node_modules/aicc-capsule/dist/cli.js``).
        """
        if command is None:
            named = os.environ.get("AICC_COMMAND")
            command = shlex.split(named) if named else ("npx", "--yes", "--package", "aicc-capsule", "aicc")
        env = dict(os.environ)
        if key is not None:
            env["AICC_SERVE_KEY"] = key
        process = subprocess.Popen(
            [*command, "serve", world, "--port", "0", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        found: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                match = _LISTENING.search(line)
                if match is not None and not found:
                    found.append(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(timeout_s) or not found:
            process.kill()
            _, err = process.communicate(timeout=10)
            why = (
                f"exited with code {process.returncode}"
                if process.returncode not in (None, -9)
                else f"did not listen within {timeout_s} s"
            )
            raise AiccError(f"aicc serve {world} {why}: {err.strip()[-400:] or 'it said nothing'}")
        return cls(found[0], process, key=key)

    def stop(self) -> None:
        """Stops the server this object started (by its PID); one it connected to keeps running."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def __enter__(self) -> AiccServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
