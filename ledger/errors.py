"""What the ledger refuses: one exception per HTTP status, each with a stable ``code``.

>>> Stale("hand 3 changed since revision 2").status
409
"""

from __future__ import annotations

from typing import Any

from hupai.scoring import ScoringInputError


class LedgerError(Exception):
    """A request the ledger refuses; ``status`` is its HTTP status, ``code`` stable."""

    status = 400
    code = "invalid_request"

    def __init__(self, message: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra = extra


class NotFound(LedgerError):
    status = 404
    code = "not_found"


class ReadOnly(LedgerError):
    status = 403
    code = "read_only"


class Stale(LedgerError):
    status = 409
    code = "stale"


class Unavailable(LedgerError):
    status = 503
    code = "database_unavailable"


class Invalid(LedgerError):
    status = 422
    code = "invalid_request"

    @staticmethod
    def of(exc: ScoringInputError, prefix: str = "") -> Invalid:
        field = f"{prefix}{exc.path}" if exc.path else prefix.rstrip(".") or None
        return Invalid(f"{field}: {exc.message}" if field else exc.message, field)
