"""What every line parser of the reference-log importer shares: the error a line raises,
the syntax of job ids, and how much of an offending line an error may quote."""

from __future__ import annotations

import re

from .loaders import quote

# Job ids are uuids (cuzk-core engine.rs `Uuid::new_v4()`) or ids a client chose; never
# blanks, commas or colons, so that a fragment of an interleaved `CUZK_TIMING:` write or of
# another record can never pass for one.
JOB_ID_MAX = 128
JOB_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._/-]{{0,{JOB_ID_MAX - 1}}}")
_RECORD_WORDS = ("TIMELINE", "CUZK_")


class LineError(ValueError):
    """A line that starts like a record of a known source but breaks its syntax."""


def check_job_id(value: str, what: str) -> str:
    if not JOB_ID.fullmatch(value) or any(word in value for word in _RECORD_WORDS):
        raise LineError(f"{what} {quote(value)!r} is not a job id (letters, digits, . _ / -; no record text)")
    return value


def uint(value: str, what: str) -> int:
    if not value.isascii() or not value.isdigit() or len(value) > 18:
        raise LineError(f"{what}={quote(value)!r} is not a non-negative integer")
    return int(value)
