"""Open a page in headless Chromium and report what a reader would meet: console errors, images that did not
load, and a screenshot. Chromium is driven over its DevTools protocol (a websocket; tornado's client, which
comes with Dask)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT_S = 60.0


class BrowserError(RuntimeError):
    """Chromium did not start, or did not answer."""


def find_chromium() -> str | None:
    """``$NDPGPU_CHROMIUM`` or the first Chromium on PATH."""
    if os.environ.get("NDPGPU_CHROMIUM"):
        return os.environ["NDPGPU_CHROMIUM"]
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclasses.dataclass
class PageVisit:
    """What loading one page produced."""

    console_errors: list[str]
    images: list[dict[str, Any]]  # {"src", "complete", "width", "height"} per <img>
    title: str
    screenshot: bytes


def _errors(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            out.append("console." + params["type"] + ": " + " ".join(str(a.get("value", a.get("description", "")))
                                                                    for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            out.append("exception: " + str(params.get("exceptionDetails", {}).get("text", "")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            out.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip())
    return out


async def _visit(ws_url: str, url: str) -> PageVisit:
    from tornado.websocket import websocket_connect

    conn = await websocket_connect(ws_url, max_message_size=1 << 28)
    events: list[dict[str, Any]] = []
    next_id = 0

    async def receive() -> dict[str, Any]:
        raw = await asyncio.wait_for(conn.read_message(), TIMEOUT_S)
        if raw is None:
            raise BrowserError("Chromium closed the DevTools connection")
        return json.loads(raw)

    async def call(method: str, **params: Any) -> dict[str, Any]:
        nonlocal next_id
        next_id += 1
        await conn.write_message(json.dumps({"id": next_id, "method": method, "params": params}))
        while True:
            message = await receive()
            if message.get("id") == next_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            events.append(message)

    try:
        for domain in ("Runtime", "Log", "Page"):
            await call(f"{domain}.enable")
        await call("Page.navigate", url=url)
        while not any(e.get("method") == "Page.loadEventFired" for e in events):
            events.append(await receive())
        probe = ("JSON.stringify({title: document.title, images: Array.from(document.images).map(i => ({src: "
                 "i.src.slice(0, 40), complete: i.complete, width: i.naturalWidth, height: i.naturalHeight}))})")
        found = json.loads((await call("Runtime.evaluate", expression=probe, returnByValue=True))["result"]["value"])
        shot = await call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        await asyncio.sleep(0.2)  # late console messages
        await call("Runtime.evaluate", expression="1")
    finally:
        conn.close()
    import base64

    return PageVisit(_errors(events), found["images"], found["title"], base64.b64decode(shot["data"]))


def visit(page: Path, chromium: str) -> PageVisit:
    """Load ``page`` (a file) in a fresh headless Chromium and report what happened."""
    # Chromium's helper processes (crashpad, renderers) can still write into the profile for a moment after the
    # browser exits; the whole process group is stopped and the profile removed with retries (see _stop).
    with tempfile.TemporaryDirectory(prefix="ndpgpu-chromium-", ignore_cleanup_errors=True) as profile:
        cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--no-default-browser-check", "--remote-debugging-port=0", f"--user-data-dir={profile}",
               "--window-size=1280,1600", "about:blank"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + TIMEOUT_S
            while not port_file.exists() or not port_file.read_text().strip():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise BrowserError(f"{chromium} did not start (exit status {proc.poll()})")
                time.sleep(0.05)
            port = int(port_file.read_text().split()[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=TIMEOUT_S) as reply:
                targets = json.load(reply)
            ws_url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
            return asyncio.run(_visit(ws_url, page.resolve().as_uri()))
        finally:
            _stop(proc)
            _remove(Path(profile))


def _stop(proc: subprocess.Popen) -> None:
    """Stop the browser and every helper it started (they share its process group)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            continue
        time.sleep(0.2)  # helpers of the group that outlive the browser itself


def _remove(profile: Path) -> None:
    """Delete the profile, retrying while a dying helper still writes into it."""
    for _ in range(20):
        shutil.rmtree(profile, ignore_errors=True)
        if not profile.exists():
            return
        time.sleep(0.1)
