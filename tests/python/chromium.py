"""A headless Chromium driven over the DevTools protocol, for tests that load a page for real.

The browser is started with `--remote-debugging-pipe` (the protocol's JSON messages, each
ended by a NUL byte, on file descriptors 3 and 4), so nothing but the standard library is
needed and no port is opened. `Browser.load(url)` opens the page, waits for its load event
and records every console error, uncaught exception, failed request and error log entry;
`evaluate` runs JavaScript in it and `screenshot` returns a PNG. The browser is stopped
(Browser.close, then killed if it lingers) when the context manager exits.

The binary: $PROOFLAB_CHROMIUM, else `chromium` or `chromium-browser` on PATH (Debian's
package `chromium`, which .ci/install-deps installs). `find_chromium()` is None without one.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any


def find_chromium() -> str | None:
    explicit = os.environ.get("PROOFLAB_CHROMIUM")
    if explicit:
        return explicit
    return shutil.which("chromium") or shutil.which("chromium-browser")


class ChromiumError(RuntimeError):
    pass


class Chromium:
    def __init__(self, binary: str, width: int = 1400, height: int = 1800, timeout_s: float = 60.0) -> None:
        self.binary, self.width, self.height, self.timeout_s = binary, width, height, timeout_s
        self.errors: list[str] = []
        self._next_id = 0
        self._buffer = b""
        self._events: list[dict[str, Any]] = []

    # ------------------------------------------------------------ process and pipe

    def __enter__(self) -> "Chromium":
        self._profile = tempfile.TemporaryDirectory(prefix="prooflab-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds() -> None:  # in the child, before exec: the pipe ends become fds 3 and 4
            r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self._proc = subprocess.Popen(
            [self.binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
             f"--user-data-dir={self._profile.name}", f"--window-size={self.width},{self.height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=wire_fds, close_fds=False)  # fds 3 and 4 must survive the exec
        os.close(to_browser_r)
        os.close(from_browser_w)
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self._call(f"{domain}.enable", session=True)
        self._call("Emulation.setDeviceMetricsOverride",
                   {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False}, session=True)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._proc.poll() is None:
                self._send("Browser.close", {})
                self._proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired, ChromiumError):
            pass
        finally:
            if self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stderr is not None:
                self._proc.stderr.close()
            for fd in (self._to_browser, self._from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._profile.cleanup()

    def _send(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError(f"no answer from {self.binary} within {self.timeout_s:g} s")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    stderr = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
                    raise ChromiumError(f"{self.binary} closed the DevTools pipe: {stderr[-2000:]}")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def _call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout_s
        while True:
            message = self._read_message(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise ChromiumError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._record(message)

    def _record(self, message: dict[str, Any]) -> None:
        method, params = message.get("method", ""), message.get("params", {})
        self._events.append(message)
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Network.loadingFailed":
            self.errors.append(f"request failed: {params.get('errorText')} ({params.get('type')})")

    # ------------------------------------------------------------------- the page

    def load(self, url: str) -> None:
        """Navigate and wait for the page's load event."""
        result = self._call("Page.navigate", {"url": url}, session=True)
        if result.get("errorText"):
            raise ChromiumError(f"cannot open {url}: {result['errorText']}")
        deadline = time.monotonic() + self.timeout_s
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            self._record(self._read_message(deadline))

    def evaluate(self, expression: str) -> Any:
        result = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                 "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise ChromiumError(f"evaluate {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        """PNG of the viewport."""
        data = self._call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        return base64.b64decode(data)
