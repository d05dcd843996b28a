"""`python -m sniff otel` as a user runs it: what it prints, how it stops (Ctrl-C, SIGTERM,
kill -9 in the middle of a burst of posts), and its one-line errors. Each test runs the
command as a subprocess on a free port; every wait has a timeout.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.otel.otlp import TIMEOUT, lines, logs_json, post

REPO = Path(__file__).resolve().parents[2]


class Command:
    """`python -m sniff otel --port 0 --out FOLDER` in a subprocess, and what it printed."""

    def __init__(self, folder: Path) -> None:
        arguments = [sys.executable, "-m", "sniff", "otel", "--port", "0", "--out", str(folder)]
        self.process = subprocess.Popen(
            arguments,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        STARTED.append(self.process)
        self.printed: list[str] = []
        seen: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: [seen.put(line) for line in stdout], daemon=True).start()
        deadline = time.monotonic() + 60
        while not any("Ctrl-C to stop" in line for line in self.printed):  # the block's end
            assert time.monotonic() < deadline, "the receiver printed no endpoint"
            try:
                self.printed.append(seen.get(timeout=1))
            except queue.Empty:
                assert self.process.poll() is None, "the receiver exited before listening"
        endpoint = next(line for line in self.printed if "OTLP_ENDPOINT" in line)
        found = re.search(r"=http://127\.0\.0\.1:(\d+)$", endpoint.strip())
        assert found is not None
        self.port = int(found.group(1))

    def stop(self, signum: int) -> tuple[int, str]:
        """Send `signum`; the exit code and what went to stderr."""
        self.process.send_signal(signum)
        code = self.process.wait(timeout=30)
        assert self.process.stderr is not None
        return code, self.process.stderr.read()


STARTED: list[subprocess.Popen[str]] = []
"""Every receiver a test started: each is killed after its test, however the test ended."""


@pytest.fixture(autouse=True)
def _no_receiver_outlives_its_test() -> Iterator[None]:
    yield
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_the_printed_block_names_the_bound_port_and_sigterm_exits_0(tmp_path: Path) -> None:
    command = Command(tmp_path / "out")
    try:
        exports = [line.strip() for line in command.printed if line.startswith("export ")]
        assert exports == [
            "export CLAUDE_CODE_ENABLE_TELEMETRY=1",
            "export OTEL_LOGS_EXPORTER=otlp",
            "export OTEL_TRACES_EXPORTER=otlp",
            "export OTEL_METRICS_EXPORTER=otlp",
            "export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
            f"export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:{command.port}",
            "export CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1",
        ]
        assert any(str(tmp_path / "out") in line for line in command.printed)
        body = json.dumps(logs_json()).encode()
        assert post(command.port, "/v1/logs", body)[0] == 200
    finally:
        code, stderr = command.stop(signal.SIGTERM)
    assert code == 0 and "Traceback" not in stderr
    assert len(lines(tmp_path / "out")) == 1


def test_ctrl_c_exits_0_without_a_traceback(tmp_path: Path) -> None:
    command = Command(tmp_path)
    code, stderr = command.stop(signal.SIGINT)
    assert code == 0 and "Traceback" not in stderr


def test_a_kill_9_during_a_burst_leaves_only_whole_lines(tmp_path: Path) -> None:
    command = Command(tmp_path)
    stop = threading.Event()
    sent: list[int] = []

    def burst(worker: int) -> None:
        number = 0
        while not stop.is_set():
            payload = json.dumps(logs_json(f"{worker}-{number} " + "y" * (number % 40) * 50))
            try:
                post(command.port, "/v1/logs", payload.encode())
            except (OSError, http.client.HTTPException):  # the receiver is gone, mid-answer too
                return
            sent.append(1)
            number += 1

    workers = [threading.Thread(target=burst, args=(worker,)) for worker in range(8)]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 30
    while len(sent) < 200 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(command.process.pid, signal.SIGKILL)
    command.process.wait(timeout=30)
    stop.set()
    for worker in workers:
        worker.join(TIMEOUT)
    kept = lines(tmp_path)
    assert len(kept) >= 200
    for line in kept:
        assert json.loads(line)["resourceLogs"]


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "sniff", "otel", "--port", str(port), "--out", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=REPO,
        )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "in use" in result.stderr


def test_an_out_folder_that_cannot_be_made_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "sniff", "otel", "--port", "0", "--out", str(tmp_path / "file/x")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot create" in result.stderr
