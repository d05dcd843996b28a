"""A full scan works with no network at all: prices come from the installed library's data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = json.loads((ROOT / "tests" / "golden" / "sample_logs_expected.json").read_text())

NO_NETWORK = '''\
"""Loaded at interpreter start-up: every way to reach the network raises."""
import socket


def _offline(*args, **kwargs):
    raise OSError("network access attempted during an offline test")


socket.socket.connect = _offline
socket.socket.connect_ex = _offline
socket.socket.sendto = _offline
socket.create_connection = _offline
socket.getaddrinfo = _offline
socket.gethostbyname = _offline
'''


@pytest.fixture
def offline_env(tmp_path: Path) -> dict[str, str]:
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(NO_NETWORK)
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(guard), env.get("PYTHONPATH")]))
    env["SNIFF_CACHE_DIR"] = str(cache)
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env.pop(proxy, None)
    return env


def _python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
    )


def test_the_guard_really_blocks_the_network(offline_env):
    probe = "import socket; socket.create_connection(('pypi.org', 443), timeout=1)"
    result = _python(offline_env, "-c", probe)
    assert result.returncode != 0
    assert "network access attempted during an offline test" in result.stderr


def test_full_scan_offline_with_an_empty_price_cache(offline_env):
    result = _python(
        offline_env, "-m", "sniff", "scan", "--json", "--tz", "UTC", "sample_logs/claude-code"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    totals = report["totals"]
    assert {key: totals[key] for key in EXPECTED["totals"]} == EXPECTED["totals"]
    assert totals["cost_usd"] is not None and totals["cost_usd"] > 0
    assert report["warnings"]["unpriced_models"] == []
    assert report["source"]["prices"].startswith("genai-prices")


def test_token_counting_is_exact_offline_with_an_empty_cache(offline_env):
    """tiktoken's encoding comes from the installed packages, never from the network."""
    code = (
        "from pathlib import Path; from sniff import tokens; from sniff.logs import load; "
        "from sniff.ingest.record import Prompts; "
        "d = load([Path('sample_logs/claude-trace')], with_prompts=Prompts.COUNTED); "
        "blocks = [b for r in d.requests for b in r.blocks]; "
        "assert blocks and all(b.tokens > 0 for b in blocks if b.kind == 'tool'); "
        "assert tokens.exact(); print(tokens.count('Hello world'))"
    )
    result = _python(offline_env, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2"
