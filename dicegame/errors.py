"""The refusals every layer shares: an action that is not allowed, with the HTTP status the views
answer and the message the page shows; the game is unchanged."""

from __future__ import annotations


class GameActionError(Exception):
    """A refused action. `status` is the HTTP status the views answer with; the game is unchanged."""

    status = 409

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class GameNotFound(GameActionError):
    status = 404
