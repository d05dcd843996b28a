"""The HTML report in a real browser (headless Chromium): every chart drawn, no network used.

The test drives Chromium over the DevTools protocol: it watches every request the report's own
page makes (the browser's background services are not the page's), and asks the page how many
marks each chart has and how large it is drawn.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed")

CHARTS = {
    "chart-daily-cost": "g[id^=patch_]",  # a bar segment per day and token class
    "chart-hit-rate": "use",  # a marker per day
    "chart-drift": "use",  # a marker per week
    "chart-breaks": "g[id^=patch_]",  # a bar per cause
    "chart-latency-ttft": "g[id^=patch_]",  # a bar per histogram bucket
    "chart-latency-visible": "g[id^=patch_]",
    "chart-latency-e2e": "g[id^=patch_]",
}
"""Each chart, and the SVG elements its data are drawn with (by matplotlib)."""
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


class Page:
    """One browser tab driven over the DevTools protocol."""

    def __init__(self, socket: Any, session: str) -> None:
        self.socket = socket
        self.session = session
        self.serial = 0
        self.requests: list[str] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.serial += 1
        message = {"id": self.serial, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        self.socket.send(json.dumps(message))
        while True:
            reply = self._receive()
            if reply.get("id") == self.serial:
                assert "error" not in reply, reply
                result: dict[str, Any] = reply.get("result", {})
                return result

    def wait_for(self, event: str, seconds: float) -> None:
        """Follow events until `event` arrives, then a little longer for late requests."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._receive().get("method") == event:
                settle = time.monotonic() + 1.0
                while time.monotonic() < settle:
                    self._receive(timeout=0.2)
                return
        raise AssertionError(f"no {event} within {seconds} s")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def _receive(self, timeout: float = 30.0) -> dict[str, Any]:
        import websocket

        self.socket.settimeout(timeout)
        try:
            message: dict[str, Any] = json.loads(self.socket.recv())
        except websocket.WebSocketTimeoutException:
            return {}
        if message.get("method") == "Network.requestWillBeSent":
            self.requests.append(message["params"]["request"]["url"])
        return message


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """Chromium with a DevTools endpoint, and a connection to it."""
    import websocket

    assert BROWSER is not None
    process = subprocess.Popen(
        [
            BROWSER,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-port=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--no-first-run",
            "about:blank",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    address = None
    for line in process.stderr:
        found = re.search(r"DevTools listening on (ws://\S+)", line)
        if found:
            address = found.group(1)
            break
    assert address, "Chromium did not open its DevTools endpoint"
    socket = websocket.create_connection(address, timeout=30, suppress_origin=True)
    try:
        yield socket
    finally:
        socket.close()
        process.kill()
        process.wait(timeout=30)


def open_page(socket: Any, page: Path) -> Page:
    """A new tab with network events on, showing `page` once it has loaded."""
    browser = Page(socket, "")
    target = browser.call("Target.createTarget", url="about:blank")["targetId"]
    session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    tab = Page(socket, session)
    tab.call("Network.enable")
    tab.call("Page.enable")
    tab.call("Page.navigate", url=page.as_uri())
    tab.wait_for("Page.loadEventFired", 60)
    return tab


def remote(requests: list[str]) -> list[str]:
    return [url for url in requests if not url.startswith(LOCAL_SCHEMES)]


def test_every_chart_is_drawn_and_the_page_makes_no_request(tmp_path: Path, browser: Any) -> None:
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(SAMPLE_LOGS), "-o", str(page), "--tz", "UTC"])
    assert result.exit_code == 0, result.output
    tab = open_page(browser, page)
    assert tab.requests and tab.requests[0] == page.as_uri()  # the watch does see requests
    assert remote(tab.requests) == []
    for chart, marks in CHARTS.items():
        drawn = tab.evaluate(
            f"(() => {{ const svg = document.querySelector('#{chart} svg');"
            " if (!svg) return null; const box = svg.getBoundingClientRect();"
            f" return [svg.querySelectorAll('{marks}').length, box.width, box.height]; }})()"
        )
        assert drawn is not None, f"{chart} is missing"
        count, width, height = drawn
        assert width > 300 and height > 100, f"{chart} is drawn {width}x{height}"
        assert count >= 5, f"{chart} has only {count} marks"


def test_the_watch_does_catch_a_page_that_reaches_out(tmp_path: Path, browser: Any) -> None:
    """The check above can fail: a page with one remote image is caught."""
    page = tmp_path / "leaky.html"
    page.write_text("<html><body><img src='http://example.invalid/pixel.png'></body></html>")
    tab = open_page(browser, page)
    assert remote(tab.requests) == ["http://example.invalid/pixel.png"]


def test_the_table_headers_sort_the_rows(tmp_path: Path, browser: Any) -> None:
    page = tmp_path / "report.html"
    CliRunner().invoke(app, ["report", str(SAMPLE_LOGS), "-o", str(page), "--by", "project"])
    tab = open_page(browser, page)
    costs = (
        "Array.from(document.querySelector('table.sortable').tBodies[0].rows)"
        ".map(r => parseFloat(r.cells[2].dataset.sort))"
    )
    tab.evaluate("document.querySelector('table.sortable th:nth-child(3)').click()")
    ascending = tab.evaluate(costs)
    assert ascending == sorted(ascending)
    tab.evaluate("document.querySelector('table.sortable th:nth-child(3)').click()")
    assert tab.evaluate(costs) == sorted(ascending, reverse=True)


PHONE = 420
READABLE = """(() => {
  const shown = (el) => el.getClientRects().length > 0;
  const own = (el) => Array.from(el.childNodes).some(
    (n) => n.nodeType === 3 && n.textContent.trim());
  const html = Array.from(document.body.querySelectorAll('*'))
    .filter((el) => shown(el) && own(el) && !el.closest('svg'))
    .map((el) => parseFloat(getComputedStyle(el).fontSize));
  const charts = Array.from(document.querySelectorAll('figure svg')).filter(shown).map((svg) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = Array.from(svg.querySelectorAll('text'))
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    return [svg.getBoundingClientRect().right, Math.min(...sizes)];
  });
  const boxes = Array.from(document.querySelectorAll('table')).map((table) => {
    const box = table.parentElement;
    return [box.className, getComputedStyle(box).overflowX, box.getBoundingClientRect().right,
            box.scrollWidth > box.clientWidth];
  });
  return {page: document.scrollingElement.scrollWidth, html: Math.min(...html), charts, boxes};
})()"""
"""At the page's width: how wide the page scrolls, its smallest text, each chart's right edge
and smallest text as drawn, and each table's box (class, overflow, right edge, scrolls)."""


def test_at_420_px_text_stays_readable_and_tables_scroll_in_their_box(
    tmp_path: Path, browser: Any
) -> None:
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(SAMPLE_LOGS), "-o", str(page), "--tz", "UTC"])
    assert result.exit_code == 0, result.output
    tab = open_page(browser, page)
    tab.call(
        "Emulation.setDeviceMetricsOverride",
        width=PHONE,
        height=900,
        deviceScaleFactor=2,
        mobile=True,
    )
    seen = tab.evaluate(READABLE)
    assert seen["page"] <= PHONE  # no sideways scrolling of the page itself
    assert seen["html"] >= 12
    assert len(seen["charts"]) == len(CHARTS)  # one drawing of each chart is shown
    for right, smallest in seen["charts"]:
        assert right <= PHONE and smallest >= 10, seen["charts"]
    assert seen["boxes"]
    for kind, overflow, right, _ in seen["boxes"]:
        assert (kind, overflow) == ("scroll", "auto") and right <= PHONE
    assert any(scrolls for *_, scrolls in seen["boxes"])  # the widest do scroll, inside
