"""Lines of the cuzk daemon's `tracing` log (tracing-subscriber's default format).

cuzk-daemon (extern/cuzk/cuzk-daemon/src/main.rs) installs `tracing_subscriber::fmt()`
with targets, so every `info!` / `warn!` / `error!` of the engine becomes

    2026-08-20T11:51:28.123456Z  INFO gpu_worker{worker_id=0 gpu=0 job_id=...}: cuzk_core::engine: message k=v k=v

(RFC 3339 time in UTC, the level right-aligned in 5 columns, the enclosing spans with their
fields, the target, the message, then the event's fields; the message may be absent). On a
terminal, and by default in a redirected log too, the parts are wrapped in ANSI colour
escapes, which `strip_ansi` removes first. Field values printed with `%` (Display) may
contain blanks, so a value runs up to the next ` key=`.

Only a few messages carry figures (reflog.py reads them); every other well-formed tracing
line is informational.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from .reflog_lines import LineError

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR")
# engine.rs wraps each GPU call in `info_span!("gpu_worker", worker_id, gpu, job_id, ...)`, so every
# line the call logs names its worker's GPU too (a log that starts after the worker start lines).
WORKER_SPAN = "gpu_worker"
_LINE = re.compile(
    r"(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z) +(?P<level>" + "|".join(LEVELS) + ") "
    r"(?P<spans>(?:[A-Za-z_][A-Za-z0-9_]*(?:\{[^{}]*\})?:)*) ?(?P<target>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*):"
    r"(?: (?P<body>.*))?"
)
_LOOKS_LIKE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
_SPAN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\{([^{}]*)\})?:")
_FIELD = re.compile(r"(?:^| )([a-z_][a-z0-9_.]*)=")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def looks_like_tracing(line: str) -> bool:
    return len(line) > 20 and line[10] == "T" and _LOOKS_LIKE.match(line) is not None


@dataclass(frozen=True)
class TracingLine:
    timestamp: str
    level: str
    span_fields: dict[str, str]  # fields of the enclosing spans (innermost wins)
    span_names: tuple[str, ...]  # the enclosing spans, outermost first
    target: str
    message: str
    fields: dict[str, str]

    def field(self, key: str) -> str | None:
        """An event field, else the field of an enclosing span."""
        return self.fields.get(key, self.span_fields.get(key))

    def epoch_s(self) -> float:
        return datetime.fromisoformat(self.timestamp).timestamp()


def _fields(text: str) -> tuple[str, dict[str, str]]:
    """(message, fields) of an event body or a span's field list."""
    matches = list(_FIELD.finditer(text))
    if not matches:
        return text.strip(), {}
    message = text[: matches[0].start()].strip()
    fields = {}
    for m, nxt in zip(matches, matches[1:] + [None]):
        fields[m.group(1)] = text[m.end(): nxt.start() if nxt is not None else len(text)]
    return message, fields


def parse_tracing(line: str) -> TracingLine:
    """A line (ANSI already stripped) that starts with an RFC 3339 time; LineError otherwise."""
    m = _LINE.fullmatch(line)
    if m is None:
        raise LineError("starts with a time but is not `<time> <LEVEL> [spans:] <target>: <message> [k=v ...]`")
    span_fields: dict[str, str] = {}
    names = []
    for span in _SPAN.finditer(m["spans"]):
        names.append(span.group(1))
        if span.group(2):
            span_fields.update(_fields(span.group(2))[1])
    message, fields = _fields(m["body"] or "")
    return TracingLine(m["ts"], m["level"], span_fields, tuple(names), m["target"], message, fields)
