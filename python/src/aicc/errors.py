"""The errors of the aicc package: each says what went wrong and carries the server's code."""

from __future__ import annotations


class AiccError(Exception):
    """Something the aicc package could not do; its message says what to do about it."""


class ServeError(AiccError):
    """`aicc serve` refused a request: `code` is its error code (e.g. ``invalid_request``,
    ``capacity_reached``), `status` the HTTP status. The episode is as it was before the request."""

    def __init__(self, code: str, message: str, status: int = 0) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


class ServeUnreachable(AiccError):
    """No `aicc serve` answered at the URL (not started, stopped, or another address)."""
