"""Test support: a headless Chromium driven over the DevTools protocol, with the standard library only.

Chromium listens on a loopback port it picks (``--remote-debugging-port=0``)
and writes it to ``DevToolsActivePort`` in its profile folder; we read it, open the page target's WebSocket (a minimal
RFC 6455 client below) and send protocol commands. Events (exceptions, console
errors, network requests) are kept so that tests can assert there were none.
Used only by tests; nothing here is product code.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from typing import Any, Callable

__all__ = ["chromium_path", "chromium_or_skip", "Browser", "BrowserError", "REQUIRE_VARIABLE"]

REQUIRE_VARIABLE = "PACMAN_AI_REQUIRE_CHROMIUM"
"""Set (CI sets it) to make a missing Chromium fail the browser tests instead of skipping them."""


class BrowserError(RuntimeError):
    """The browser could not be started or answered with an error."""


def chromium_path() -> str | None:
    """The system's Chromium (Debian's `chromium` package), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_or_skip() -> str:
    """The Chromium to drive; skips the calling test when there is none (fails instead under REQUIRE_VARIABLE)."""
    import pytest

    found = chromium_path()
    if found is None:
        if os.environ.get(REQUIRE_VARIABLE):
            pytest.fail(f"Chromium is not installed and {REQUIRE_VARIABLE} is set (apt-get install chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return found


class _WebSocket:
    """A WebSocket client for one loopback connection: text frames out (masked), frames in."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise BrowserError("the browser closed the DevTools connection during the handshake")
            response += chunk
        head, _, self._buffer = response.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise BrowserError(f"DevTools handshake refused: {head.decode(errors='replace')}")

    def _read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self._buffer)))
            if not chunk:
                raise BrowserError("the browser closed the DevTools connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            opcode, n = first & 0x0F, second & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0x8:
                raise BrowserError("the browser closed the DevTools connection")
            message += payload
            if first & 0x80:
                return message.decode()

    def close(self) -> None:
        self.sock.close()


class Browser:
    """One headless Chromium with one page. `open(url)` loads a page; `evaluate(js)` runs an expression in it."""

    def __init__(self, executable: str, timeout: float = 20.0, size: tuple[int, int] = (1100, 700)) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="pacman-ai-chromium-")
        self._log = open(os.path.join(self.profile, "stderr.log"), "w")
        self.process = subprocess.Popen(
            [executable, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
             f"--window-size={size[0]},{size[1]}", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log)
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        try:
            port = self._port()
            self.socket = _WebSocket(self._page_socket(port), timeout)
            for domain in ("Page", "Runtime", "Network", "Log"):
                self.call(f"{domain}.enable")
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        deadline = time.monotonic() + self.timeout
        active = os.path.join(self.profile, "DevToolsActivePort")
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with open(active) as file:
                    first = file.readline().strip()
            except FileNotFoundError:
                first = ""
            if first.isdigit():
                return int(first)
            time.sleep(0.05)
        with open(os.path.join(self.profile, "stderr.log")) as file:
            tail = file.read()[-600:]
        raise BrowserError(f"Chromium did not start its DevTools server: {tail}")

    def _page_socket(self, port: int) -> str:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=self.timeout) as answer:
                targets = json.load(answer)
            pages = [t for t in targets if t.get("type") == "page" and "webSocketDebuggerUrl" in t]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
            time.sleep(0.05)
        raise BrowserError("Chromium opened no page")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one protocol command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        ident = self._next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def open(self, url: str) -> None:
        """Load `url` and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for_event("Page.loadEventFired")

    def wait_for_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event["method"] == method:
                    return event
            self.events.append(json.loads(self.socket.receive()))
        raise BrowserError(f"no {method} within {self.timeout} s")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited); a thrown error raises."""
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise BrowserError(f"{expression!r} threw: {details.get('exception', {}).get('description', details)}")
        return answer["result"].get("value")

    def wait_until(self, expression: str, predicate: Callable[[Any], bool] = bool) -> Any:
        """Evaluate `expression` until `predicate` holds for its value; returns the value."""
        deadline = time.monotonic() + self.timeout
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if predicate(value):
                return value
            time.sleep(0.03)
        raise BrowserError(f"{expression!r} never met the condition; last value {value!r}")

    def press(self, key: str) -> None:
        """A real key press through the browser's input pipeline (keyDown, then keyUp)."""
        codes = {" ": ("Space", 32), "ArrowRight": ("ArrowRight", 39), "ArrowLeft": ("ArrowLeft", 37),
                 "Home": ("Home", 36), "End": ("End", 35), "+": ("Equal", 187), "-": ("Minus", 189)}
        code, key_code = codes[key]
        text = key if len(key) == 1 else ""
        self.call("Input.dispatchKeyEvent", type="keyDown" if text else "rawKeyDown", key=key, code=code,
                  windowsVirtualKeyCode=key_code, text=text, unmodifiedText=text)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=key_code)

    def errors(self) -> list[str]:
        """Uncaught exceptions and console or log errors since the page was opened."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", "log error"))
        return found

    def requests(self) -> list[str]:
        """The URLs of every request the page made since it was opened."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def screenshot(self) -> bytes:
        """The page as PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        socket_ = getattr(self, "socket", None)
        if socket_ is not None:
            try:
                self.call("Browser.close")
            except (BrowserError, OSError):
                pass
            socket_.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
