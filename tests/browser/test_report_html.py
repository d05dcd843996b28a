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
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.numbers import money, percent
from tests.conftest import SAMPLE_LOGS

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed")

CHARTS = {
    "chart-daily-cost": "rect.bar",  # a bar segment per day and token class
    "chart-hit-rate": "circle.dot",  # a dot per day
    "chart-latency-claude-sonnet-4-5": "rect.bar",  # a bar per histogram bucket
    "chart-latency-claude-sonnet-4": "rect.bar",
    "chart-latency-claude-opus-4-6": "rect.bar",
    "chart-latency-claude-haiku-4-5": "rect.bar",
}
"""Each chart of the sample logs' report, and the SVG elements its data are drawn with."""
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
    page = report_page(tmp_path)
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
        "Array.from(document.querySelector('#cost-by-project + .scroll table').tBodies[0].rows)"
        ".map(r => parseFloat(r.cells[2].dataset.sort))"
    )
    header = "document.querySelector('#cost-by-project + .scroll table th:nth-child(3)').click()"
    tab.evaluate(header)
    ascending = tab.evaluate(costs)
    assert len(ascending) > 3 and ascending == sorted(ascending)
    tab.evaluate(header)
    assert tab.evaluate(costs) == sorted(ascending, reverse=True)


PHONE, DESK = 420, 1280
SEEN = """(() => {
  document.querySelectorAll('details').forEach((d) => { d.open = true; });
  const width = window.innerWidth;
  const room = document.documentElement.clientWidth;
  const shown = (el) => el.getClientRects().length > 0;
  const own = (el) => Array.from(el.childNodes).some(
    (n) => n.nodeType === 3 && n.textContent.trim());
  const all = Array.from(document.body.querySelectorAll('*'));
  const html = all.filter((el) => shown(el) && own(el) && !el.closest('svg'))
    .map((el) => parseFloat(getComputedStyle(el).fontSize));
  const charts = Array.from(document.querySelectorAll('figure svg')).filter(shown).map((svg) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = Array.from(svg.querySelectorAll('text'))
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    return [svg.getBoundingClientRect().right, Math.min(...sizes)];
  });
  const sideways = all.filter((el) => el.scrollWidth > el.clientWidth + 1
    && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)).map((el) => el.tagName);
  const dollars = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!/\\$\\d/.test(node.textContent) || node.parentElement.closest('svg')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const box of range.getClientRects()) {
      dollars.push([node.textContent.trim().slice(0, 40), box.left, box.right]);
    }
  }
  return {width, room, page: document.scrollingElement.scrollWidth, html: Math.min(...html), charts,
          sideways, dollars};
})()"""
"""At the page's width, with every folded section open: how wide the page scrolls, its
smallest text, each chart's right edge and smallest text as drawn, the elements that scroll
sideways in their own box, and where each dollar amount is drawn."""


def report_page(tmp_path: Path, *paths: str) -> Path:
    page = tmp_path / "report.html"
    arguments = ["report", *(paths or (str(SAMPLE_LOGS),)), "-o", str(page), "--tz", "UTC"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return page


@pytest.mark.parametrize("width", [PHONE, DESK])
def test_nothing_scrolls_sideways_and_every_dollar_amount_is_in_view(
    tmp_path: Path, browser: Any, width: int
) -> None:
    tab = open_page(browser, report_page(tmp_path))
    tab.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=900,
        deviceScaleFactor=2,
        mobile=width == PHONE,
    )
    seen = tab.evaluate(SEEN)
    assert seen["width"] == width  # a true viewport of that width, not a clamped window
    room = seen["room"]  # the width less a scroll bar, where a desktop browser shows one
    assert seen["page"] <= room  # no sideways scrolling of the page itself
    assert seen["sideways"] == []  # nor of any box in it: tables reflow instead
    assert seen["html"] >= 12
    assert len(seen["charts"]) == len(CHARTS)  # one drawing of each chart is shown
    for right, smallest in seen["charts"]:
        assert right <= room and smallest >= 10, seen["charts"]
    assert len(seen["dollars"]) > 100  # cards, tables and findings: each one is looked at
    outside = [amount for amount in seen["dollars"] if amount[1] < 0 or amount[2] > room]
    assert outside == []


def test_the_cost_chart_has_a_true_time_axis(tmp_path: Path, browser: Any) -> None:
    """Each day's bar stands at its date: the places of the days fit one straight line."""
    tab = open_page(browser, report_page(tmp_path))
    places = tab.evaluate(
        "Array.from(document.querySelectorAll('#chart-daily-cost .wide rect.bar'))"
        ".map((r) => [r.dataset.at, r.x.baseVal.value + r.width.baseVal.value / 2])"
    )
    days = {at: x for at, x in places}
    assert len(days) >= 5
    ordinals = sorted((date.fromisoformat(at).toordinal(), x) for at, x in days.items())
    (first, x0), (last, x1) = ordinals[0], ordinals[-1]
    per_day = (x1 - x0) / (last - first)
    for ordinal, x in ordinals:
        assert x == pytest.approx(x0 + per_day * (ordinal - first), abs=0.6)


def test_the_summary_leads_with_what_a_budget_owner_asks_and_equals_the_scan(
    tmp_path: Path, browser: Any
) -> None:
    tab = open_page(browser, report_page(tmp_path))
    cards = tab.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('#summary .card'))"
        ".map((c) => [c.firstChild.textContent, c.querySelector('b').textContent]))"
    )
    scan = json.loads(
        CliRunner().invoke(app, ["scan", str(SAMPLE_LOGS), "--json", "--tz", "UTC"]).stdout
    )
    totals = scan["totals"]
    assert cards["Spend"] == money(totals["cost_usd"])
    assert cards["Without caching"] == money(totals["cost_usd"] + totals["savings_usd"])
    assert cards["Cache hit rate"] == percent(totals["hit_rate"])
    assert {"Month to date", "Projection"} <= set(cards)
    headings = tab.evaluate("Array.from(document.querySelectorAll('h2')).map((h) => h.textContent)")
    assert headings[:3] == ["Top sessions", "Top projects", "Top models"]
    sessions = tab.evaluate(
        "Array.from(document.querySelector('#top-sessions + .scroll tbody').rows)"
        ".map((r) => parseFloat(r.cells[5].dataset.sort))"
    )
    dearest = sorted((row["cost_usd"] for row in scan["sessions"]), reverse=True)
    assert sessions == pytest.approx(dearest[: len(sessions)], abs=1e-6)
    assert len(sessions) == 10
