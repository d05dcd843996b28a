"""`sniff proxy`'s parts on their own: routing, the stream's timing from hand-made chunk
sequences (split anywhere), the kept copy of a body, the record line and its secrets, the daily
files, the diagnosis fields, and the command's one-line errors."""

from __future__ import annotations

import gzip
import json
import os
import socket
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.cli.commands.proxy import banner
from sniff.ingest.providers.anthropic import anthropic_session
from sniff.proxy import files
from sniff.proxy.capture import Capture
from sniff.proxy.diagnose import BETA, Diagnosis, with_beta
from sniff.proxy.record import BROKEN, Call, to_line
from sniff.proxy.routes import (
    DEFAULT_UPSTREAMS,
    request_headers,
    response_headers,
    route,
    upstream_url,
)
from sniff.proxy.stream import StreamTiming, gap_summary

UPSTREAMS = {"anthropic": "http://a.test", "openai": "http://o.test/"}
SESSION = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
USER_ID = f"user_0f3a_account_11111111-2222-3333-4444-555555555555_session_{SESSION}"
ANTHROPIC_KEY = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8" * 4


# --- routing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "provider", "api", "recorded"),
    [
        ("/v1/messages", "anthropic", "anthropic-messages", True),
        ("/v1/messages/count_tokens", "anthropic", None, True),
        ("/v1/chat/completions", "openai", "openai-chat", True),
        ("/v1/responses", "openai", "openai-responses", True),
        ("/v1/responses/", "openai", "openai-responses", True),
        ("/v1/models", "openai", None, False),
    ],
)
def test_the_api_paths_name_their_provider(path, provider, api, recorded):
    chosen = route(path, {}, UPSTREAMS)
    assert (chosen.provider, chosen.api, chosen.recorded) == (provider, api, recorded)


def test_another_path_goes_where_its_headers_say():
    assert route("/v1/models", {"x-api-key": "k"}, UPSTREAMS).provider == "anthropic"
    assert route("/v1/files", {"anthropic-version": "2023-06-01"}, UPSTREAMS).provider == (
        "anthropic"
    )
    assert route("/v1/files", {"authorization": "Bearer k"}, UPSTREAMS).provider == "openai"


def test_the_query_string_is_forwarded_as_sent():
    chosen = route("/v1/messages", {}, UPSTREAMS)
    assert upstream_url(chosen, "/v1/messages?beta=true") == "http://a.test/v1/messages?beta=true"
    assert route("/v1/responses", {}, UPSTREAMS).upstream == "http://o.test"  # no double slash
    assert DEFAULT_UPSTREAMS["anthropic"] == "https://api.anthropic.com"


def test_hop_by_hop_headers_stop_at_the_proxy_and_credentials_pass():
    sent = [
        ("Host", "127.0.0.1:8790"),
        ("Connection", "keep-alive, X-Private"),
        ("X-Private", "hop"),
        ("Content-Length", "12"),
        ("Transfer-Encoding", "chunked"),
        ("x-api-key", "sk-ant-xyz"),
        ("anthropic-beta", "a"),
        ("anthropic-beta", "b"),
    ]
    assert request_headers(sent) == [
        ("x-api-key", "sk-ant-xyz"),
        ("anthropic-beta", "a"),
        ("anthropic-beta", "b"),
    ]
    back = [("Content-Type", "text/event-stream"), ("request-id", "req_1"), ("Keep-Alive", "5")]
    back += [("Content-Length", "10"), ("Content-Encoding", "gzip")]
    assert response_headers(back) == [
        ("Content-Type", "text/event-stream"),
        ("request-id", "req_1"),
        ("Content-Length", "10"),
        ("Content-Encoding", "gzip"),
    ]


# --- the stream's timing -----------------------------------------------------------------------


def sse(data: object, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def anthropic_events() -> list[bytes]:
    """message_start, two thinking deltas, a signature, three text deltas, a stop."""
    events = [sse({"type": "message_start", "message": {"id": "msg_01"}}, "message_start")]
    events += [sse({"type": "ping"}, "ping")]
    for kind, key in [("thinking_delta", "thinking")] * 2 + [("signature_delta", "signature")]:
        events.append(sse({"type": "content_block_delta", "delta": {"type": kind, key: "x"}}))
    for text in ("Hel", "lo", "!"):
        delta = {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta"}}
        delta["delta"]["text"] = text
        events.append(sse(delta, "content_block_delta"))
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def timed(events: list[bytes], split: int | None = None, crlf: bool = False) -> StreamTiming:
    """The timing of `events`, event `i` arriving at time 100 + i, each cut into pieces of
    `split` bytes (or whole)."""
    timing = StreamTiming()
    for index, event in enumerate(events):
        data = event.replace(b"\n", b"\r\n") if crlf else event
        pieces = [data[i : i + split] for i in range(0, len(data), split)] if split else [data]
        for piece in pieces:
            timing.feed(piece, 100.0 + index)
    timing.finish(100.0 + len(events))
    return timing


@pytest.mark.parametrize("split", [None, 1, 2, 7])
@pytest.mark.parametrize("crlf", [False, True])
def test_anthropic_timing_whatever_the_chunks(split, crlf):
    timing = timed(anthropic_events(), split, crlf)
    assert timing.response_id == "msg_01"
    assert timing.first_token_at == 102.0  # the first thinking delta
    assert timing.first_visible_at == 105.0  # the first text delta, after the thinking
    assert list(timing.delta_times) == [102.0, 103.0, 104.0, 105.0, 106.0, 107.0]


def test_the_last_event_of_each_api_is_seen():
    assert timed(anthropic_events()).done_at == 108.0  # message_stop
    assert timed([b"data: [DONE]\n\n"]).done_at == 100.0
    assert timed([sse({"type": "response.completed", "response": {"id": "r"}})]).done_at == 100.0
    assert timed(anthropic_events()[:-1]).done_at is None


def test_a_chunk_ending_mid_character_or_between_cr_and_lf():
    event = sse({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "é€"}})
    event = event.replace(b"\n", b"\r\n")
    cut = event.index(b"\r\n") + 1  # between \r and \n
    timing = StreamTiming()
    timing.feed(event[:cut], 1.0)
    timing.feed(event[cut:], 2.0)
    assert list(timing.delta_times) == [2.0]


def test_tool_input_is_visible_when_there_is_no_text():
    events = [
        sse({"type": "message_start", "message": {"id": "msg_02"}}),
        sse({"type": "content_block_delta", "delta": {"type": "thinking_delta", "thinking": "."}}),
        sse({"type": "content_block_delta", "delta": {"type": "input_json_delta"}}),
        sse({"type": "content_block_delta", "delta": {"type": "input_json_delta"}}),
    ]
    timing = timed(events)
    assert (timing.first_token_at, timing.first_visible_at) == (101.0, 102.0)


def test_openai_chat_timing():
    def chunk(delta: dict[str, object]) -> bytes:
        return sse({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [delta]})

    events = [
        chunk({"delta": {"role": "assistant", "content": ""}}),
        chunk({"delta": {"reasoning_content": "hmm"}}),
        chunk({"delta": {"content": "Hi"}}),
        chunk({"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]}}),
        chunk({"delta": {}, "finish_reason": "stop"}),
        b"data: [DONE]\n\n",
    ]
    timing = timed(events, split=3)
    assert timing.response_id == "chatcmpl-1"
    assert (timing.first_token_at, timing.first_visible_at) == (101.0, 102.0)
    assert list(timing.delta_times) == [101.0, 102.0, 103.0]


def test_openai_responses_timing():
    events = [
        sse({"type": "response.created", "response": {"id": "resp_1"}}, "response.created"),
        sse({"type": "response.reasoning_summary_text.delta", "delta": "a"}),
        sse({"type": "response.function_call_arguments.delta", "delta": "{"}),
        sse({"type": "response.output_text.delta", "delta": "b"}),
        sse({"type": "response.completed", "response": {"id": "resp_1"}}),
    ]
    timing = timed(events, split=5)
    assert timing.response_id == "resp_1"
    assert timing.first_token_at == 101.0
    assert timing.first_visible_at == 103.0  # text before a tool's input counts first


def test_an_event_without_a_final_blank_line_counts_at_the_end():
    timing = StreamTiming()
    timing.feed(b'data: {"type":"response.output_text.delta","delta":"x"}', 5.0)
    timing.finish(6.0)
    assert list(timing.delta_times) == [6.0]


def test_gap_summary():
    assert gap_summary([1.0]) is None
    assert gap_summary([0.0, 1.0, 1.5, 4.5, 4.75]) == {
        "count": 4,
        "mean_s": 1.1875,
        "p50_s": 0.75,
        "p90_s": 2.4,
        "max_s": 3.0,
    }


# --- the kept copy of a body -------------------------------------------------------------------


def test_a_gzip_body_is_kept_decoded_from_its_chunks():
    body = json.dumps({"id": "msg_1", "text": "x" * 5000}).encode()
    packed = gzip.compress(body)
    capture = Capture("gzip")
    decoded = b"".join(
        piece for i in range(0, len(packed), 100) for piece in capture.feed(packed[i : i + 100])
    )
    assert decoded == body and bytes(capture.kept) == body and not capture.cut


def test_a_body_past_the_limit_is_cut_for_the_record_only():
    capture = Capture(None, limit=10)
    passed = [piece for chunk in (b"abcdef", b"ghijkl") for piece in capture.feed(chunk)]
    assert passed == [b"abcdef", b"ghijkl"]  # everything still read (and timed)
    assert (bytes(capture.kept), capture.size, capture.cut) == (b"abcdefghij", 12, True)


def test_an_encoding_not_read_keeps_nothing():
    capture = Capture("compress")
    assert list(capture.feed(b"\x1f\x9d")) == []
    assert capture.undecoded == "compress"


# --- the record line ---------------------------------------------------------------------------


def captured(data: bytes) -> Capture:
    capture = Capture(None)
    for _ in capture.feed(data):
        pass
    return capture


def a_call(request: object, response: bytes, path: str = "/v1/messages", **fields) -> Call:
    body = request if isinstance(request, bytes) else json.dumps(request).encode()
    call = Call(route=route(path, {}, UPSTREAMS), path=path, request=captured(body), **fields)
    call.response = captured(response)
    return call


def line_of(call: Call) -> dict[str, object]:
    started, line = to_line(call)
    assert started == call.started_at and line.endswith(b"\n") and line.count(b"\n") == 1
    return json.loads(line)


def test_a_whole_answer_makes_a_line():
    request = {"model": "claude-x", "messages": [], "metadata": {"user_id": USER_ID}}
    response = json.dumps({"id": "msg_9", "usage": {"input_tokens": 3}}).encode()
    call = a_call(request, response, started_at=10.0, status=200, client="claude-cli/2.0.1")
    call.first_byte_at, call.ended_at = 11.0, 12.0
    line = line_of(call)
    assert line == {
        "request": request,
        "response": {"id": "msg_9", "usage": {"input_tokens": 3}},
        "status": 200,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "id": "msg_9",
        "started_at": 10.0,
        "first_byte_at": 11.0,
        "first_token_at": 11.0,
        "first_visible_at": 11.0,
        "ended_at": 12.0,
        "token_gaps": None,
        "outcome": "complete",
        "session": SESSION,
        "client": "claude-cli/2.0.1",
        "proxy": {"path": "/v1/messages", "upstream": "http://a.test", "diagnose": False},
    }


def test_a_stream_keeps_its_text_and_timing():
    stream = b"".join(anthropic_events())
    call = a_call({"stream": True}, stream, started_at=99.0, status=200)
    call.streamed = True
    for index, event in enumerate(anthropic_events()):
        call.timing.feed(event, 100.0 + index)
    call.ended_at = 110.0
    line = line_of(call)
    assert line["response"] == stream.decode()
    assert (line["id"], line["first_token_at"], line["first_visible_at"]) == ("msg_01", 102, 105)
    assert line["token_gaps"]["count"] == 5  # type: ignore[index]


def test_secrets_are_never_written():
    request = {
        "messages": [{"role": "user", "content": f"my key:\n{ANTHROPIC_KEY}\nplease"}],
        "metadata": {"user_id": USER_ID},
    }
    response = json.dumps({"id": "msg_1", "content": [{"text": f"KEY={ANTHROPIC_KEY}"}]})
    client = "agent/1.0 " + "pad " * 44 + "Bearer Zx9qW7eR4tY1uI8oP3aS6dF"  # cut at 200 inside
    call = a_call(request, response.encode(), started_at=1.0, status=200, client=client)
    _, line = to_line(call)
    assert ANTHROPIC_KEY[13:].encode() not in line
    assert b"Zx9qW7" not in line
    parsed = json.loads(line)
    assert parsed["request"]["messages"][0]["content"] == "my key:\nsk-ant-…[redacted]\nplease"
    assert parsed["client"].endswith("Bearer …[redacted]")
    assert "authorization" not in line.decode().lower()


def test_a_request_that_is_not_json_is_kept_as_text_and_a_cut_one_says_so():
    call = a_call(b"not json", b"", started_at=1.0)
    assert line_of(call)["request"] == "not json"
    assert line_of(call)["response"] is None
    call = a_call(b'{"a": 1}', b'{"id": "x"}', started_at=1.0)
    call.response = Capture(None, limit=4)
    list(call.response.feed(b'{"id": "x"}'))
    line = line_of(call)
    assert line["response"] == '{"id' and line["proxy"]["cut"] == {"response": 11}  # type: ignore[index]


def test_a_broken_call_has_no_response():
    call = a_call({"model": "m"}, b"", started_at=1.0, status=502, outcome=BROKEN)
    call.response = None
    call.error = "cannot reach http://a.test: refused"
    line = line_of(call)
    assert (line["response"], line["outcome"], line["status"]) == (None, "broken", 502)
    assert line["proxy"]["error"] == "cannot reach http://a.test: refused"  # type: ignore[index]


def test_the_openai_session():
    call = a_call({"prompt_cache_key": "pck"}, b"{}", path="/v1/responses", started_at=1.0)
    assert line_of(call)["session"] == "pck"
    call.session_header = "sess-1"
    assert line_of(call)["session"] == "sess-1"


def test_the_anthropic_session_in_either_form_of_user_id():
    assert anthropic_session(USER_ID) == SESSION
    assert anthropic_session(json.dumps({"device_id": "d", "session_id": SESSION})) == SESSION
    assert anthropic_session("user_0f3a") is None


# --- the daily files ---------------------------------------------------------------------------


def test_lines_go_to_the_utc_day_of_their_start(tmp_path: Path):
    late = datetime(2026, 3, 1, 23, 59, 59, tzinfo=UTC).timestamp()
    files.append(tmp_path, late, b'{"a":1}\n')
    files.append(tmp_path, late + 2, b'{"a":2}\n')
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "calls-2026-03-01.jsonl",
        "calls-2026-03-02.jsonl",
    ]
    if os.name == "posix":
        assert (tmp_path / "calls-2026-03-01.jsonl").stat().st_mode & 0o777 == 0o600


def test_a_torn_last_line_spoils_only_itself(tmp_path: Path):
    target = files.day_file(tmp_path, 0.0)
    target.write_bytes(b'{"a":1}\n{"cut')
    files.append(tmp_path, 0.0, b'{"a":2}\n')
    assert target.read_bytes() == b'{"a":1}\n{"cut\n{"a":2}\n'


async def test_the_writer_writes_each_submitted_call(tmp_path: Path):
    writer = files.Writer(tmp_path)
    writer.start()
    for number in range(3):
        writer.submit(a_call({"n": number}, b'{"id": "m"}', started_at=float(number)))
    await writer.close()
    lines = files.day_file(tmp_path, 0.0).read_bytes().splitlines()
    assert [orjson.loads(line)["request"]["n"] for line in lines] == [0, 1, 2]
    assert (writer.written, writer.failures) == (3, 0)


def test_an_out_folder_that_is_a_file_is_refused(tmp_path: Path):
    (tmp_path / "file").write_text("")
    with pytest.raises(Exception, match="cannot"):
        files.prepare(tmp_path / "file")


# --- --diagnose --------------------------------------------------------------------------------


def test_the_beta_joins_the_ones_sent():
    assert with_beta([("anthropic-beta", "a,b")], BETA) == [("anthropic-beta", f"a,b,{BETA}")]
    assert with_beta([("x", "1")], BETA) == [("x", "1"), ("anthropic-beta", BETA)]
    assert with_beta([("Anthropic-Beta", BETA)], BETA) == [("Anthropic-Beta", BETA)]


def test_diagnosis_names_the_previous_response_of_the_conversation():
    diagnosis = Diagnosis()
    request = {"messages": [{"role": "user", "content": "hi"}], "metadata": {"user_id": USER_ID}}
    body = json.dumps(request).encode()
    call = a_call(request, b"", started_at=1.0, diagnose=True)
    first, headers, key = diagnosis.apply(call, body, [])
    assert first == body and headers == [("anthropic-beta", BETA)] and key is not None
    diagnosis.remember(key, "msg_1")
    second, _, _ = diagnosis.apply(call, body, [])
    assert orjson.loads(second)["diagnostics"] == {"previous_message_id": "msg_1"}

    responses = a_call({"input": "hello"}, b"", path="/v1/responses", started_at=1.0)
    _, headers, key = diagnosis.apply(responses, b'{"input": "hello"}', [])
    assert headers == [] and key is not None
    diagnosis.remember(key, "resp_1")
    sent, _, _ = diagnosis.apply(responses, b'{"input": "hello"}', [])
    assert orjson.loads(sent)["prompt_cache_options"] == {"comparison_response_id": "resp_1"}

    chat = a_call({}, b"", path="/v1/chat/completions", started_at=1.0)
    assert diagnosis.apply(chat, b"{}", []) == (b"{}", [], None)  # not a call it changes


# --- the command -------------------------------------------------------------------------------


def test_the_banner_names_the_bound_port_and_the_variables():
    text = banner("http://127.0.0.1:4321", Path("/data/proxy"), diagnose=True)
    assert "export ANTHROPIC_BASE_URL=http://127.0.0.1:4321\n" in text
    assert "export OPENAI_BASE_URL=http://127.0.0.1:4321/v1\n" in text
    assert "model_providers" in text and "CHANGED" in text


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["proxy", "--port", str(port), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "in use" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_bad_upstream_is_one_line_and_exit_2(tmp_path: Path):
    args = ["proxy", "--out", str(tmp_path), "--openai-upstream", "ftp://x"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "--openai-upstream" in result.output
