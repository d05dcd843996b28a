"""Provides what the linter reads: prompt files, request bodies, and logged requests.

Prompt files are plain text or Markdown (a system prompt or template: one block per paragraph),
or JSON (one request body for the Anthropic Messages, OpenAI Chat or Responses API, or a list of
them). Logs with request bodies (claude-trace, request logs) give one prompt per logged request,
in the order they were sent; logs without (Claude Code, Codex) feed only the rules about chains.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from sniff.errors import UserError
from sniff.ingest import anthropic_api, openai_api
from sniff.ingest.anthropic_api import API as ANTHROPIC
from sniff.ingest.discover import LOG_SUFFIX, expand
from sniff.ingest.log_formats import detect
from sniff.ingest.openai_api import CHAT, RESPONSES
from sniff.ingest.plausible import Implausible, too_deep
from sniff.ingest.prompt_blocks import cache_mark
from sniff.ingest.record import epoch
from sniff.ingest.request_log import detect_api
from sniff.lint.prompts import LintBlock, LintPrompt

TEXT = "text"
DOCUMENTATION = frozenset({"README", "CHANGELOG", "CONTRIBUTING", "LICENSE", "NOTICE", "AUTHORS"})
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".prompt", ".jinja", ".j2", ".tmpl"})
PARAMS = (
    "tool_choice",
    "thinking",
    "reasoning",
    "prompt_cache_key",
    "parallel_tool_calls",
    "service_tier",
    "speed",
)


def load_prompts(paths: list[Path]) -> tuple[list[LintPrompt], list[Path]]:
    """Prompts from prompt files and request logs; and the logs that hold no prompts.

    A file is a log (`*.jsonl`) or a prompt file; a folder is walked for logs as every command
    walks it (`discover.expand`): the Markdown and text beside logs are notes, not prompts
    (`prompt_files` finds those of a folder of prompts).

    Raises:
        UserError: a path does not exist, a folder holds no log, or a prompt file cannot be
            read.
    """
    prompts: list[LintPrompt] = []
    usage_only: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UserError(f"no such file or directory: {path}")
        if path.is_file() and path.suffix != LOG_SUFFIX:
            prompts.extend(_prompt_file(path))
            continue
        sources = expand([path])
        if not sources:
            raise UserError(_no_logs(path))
        for source in sources:
            log = Path(source.path)
            found = list(_logged(log)) if log.is_file() else []  # an export holds no prompts
            if found:
                prompts.extend(found)
            else:
                usage_only.append(log)
    return prompts, usage_only


def prompt_files(paths: list[Path]) -> list[Path]:
    """The prompt files `paths` name: files as they are, folders walked for text, Markdown
    and JSON bodies, leaving out their documentation (README, CHANGELOG, ...: name such a
    file to lint it) and logs.

    Raises:
        UserError: a path does not exist, or a folder holds no prompt file.
    """
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UserError(f"no such file or directory: {path}")
        if path.is_file():
            found.append(path)
            continue
        inside = sorted(
            file
            for file in path.rglob("*")
            if file.is_file()
            and file.stem.upper() not in DOCUMENTATION
            and (file.suffix in TEXT_SUFFIXES or file.suffix == ".json")
        )
        if not inside:
            suffixes = ", ".join(sorted({*TEXT_SUFFIXES, ".json"}))
            raise UserError(f"no prompt files ({suffixes}) under {path}")
        found.extend(inside)
    return found


def _no_logs(folder: Path) -> str:
    """Why a folder gave nothing to lint, and what to type if it holds prompts."""
    try:
        prompt_files([folder])
    except UserError:
        return f"no logs (*{LOG_SUFFIX}) under {folder}"
    return (
        f"no logs (*{LOG_SUFFIX}) under {folder}; its prompt files: sniff lint --prompts {folder}"
    )


def body_prompt(file: str, body: dict[str, Any], **extra: Any) -> LintPrompt:
    """A request body as a prompt, its API detected from its shape."""
    api = detect_api(body, None)
    if api == RESPONSES:
        blocks = _responses_blocks(body)
    elif api == CHAT and "system" not in body:
        blocks = _chat_blocks(body)
    else:
        api, blocks = ANTHROPIC, _anthropic_blocks(body)
    params = {name: body[name] for name in PARAMS if name in body}
    params["images"] = any(block.kind in ("image", "input_image", "image_url") for block in blocks)
    model = body.get("model") if isinstance(body.get("model"), str) else None
    return LintPrompt(
        file=file, blocks=tuple(blocks), api=api, model=model, params=params, body=body, **extra
    )


def text_prompt(file: str, text: str) -> LintPrompt:
    """A plain prompt file: a system prompt, one block per paragraph."""
    blocks: list[LintBlock] = []
    offset = 0
    for number, paragraph in enumerate(text.split("\n\n"), start=1):
        if paragraph.strip():
            blocks.append(
                LintBlock(f"paragraph {number}", "text", "system", paragraph, offset=offset)
            )
        offset += len(paragraph) + 2
    return LintPrompt(file=file, blocks=tuple(blocks), api=TEXT, source_text=text)


def _prompt_file(file: Path) -> list[LintPrompt]:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read {file}: {error}") from error
    if file.suffix != ".json":
        return [text_prompt(str(file), text)]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(
            f"{file}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}"
        ) from error
    bodies = value if isinstance(value, list) else [value]
    prompts = []
    for index, body in enumerate(bodies):
        if not isinstance(body, dict):
            raise UserError(f"{file}: item {index} is not a request body (a JSON object)")
        prompt = body_prompt(
            str(file),
            body,
            source_text=text,
            request=f"#{index + 1}" if len(bodies) > 1 else None,
            index=index if isinstance(value, list) else None,
        )
        prompts.append(prompt)
    return prompts


def _logged(file: Path) -> Iterator[LintPrompt]:
    """The requests of a claude-trace or request log that reached a model, as prompts."""
    [source] = expand([file])
    data = file.read_bytes()
    log_format = detect(data)
    if log_format not in ("claude-trace", "request-log"):
        return
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if too_deep(raw):  # a line a scan skips is skipped here too (`ingest.plausible`)
            continue
        if not isinstance(record, dict) or not isinstance(record.get("request"), dict):
            continue
        request = record["request"]
        if log_format == "claude-trace":
            if "/v1/messages" not in str(request.get("url", "")) or "count_tokens" in str(
                request.get("url", "")
            ):
                continue
            body, started = request.get("body"), epoch(request.get("timestamp"))
            session = _trace_session(body)
        else:
            body, started = request, epoch(record.get("started_at"))
            session = record.get("session") if isinstance(record.get("session"), str) else None
        if not isinstance(body, dict):
            continue
        prompt = body_prompt(
            str(file),
            body,
            request=_request_id(record, number),
            line=number,
            session=session or source.path,
            started=started,
        )
        response = record.get("response")
        if log_format == "claude-trace" and isinstance(response, dict):
            response = response.get("body") or response.get("body_raw")  # the API's answer
        try:
            cache_usage = _cache_usage(response, prompt.api)
        except Implausible:
            continue
        yield replace(prompt, cache_usage=cache_usage)


def _cache_usage(response: Any, api: str) -> int | None:
    """Prompt tokens a logged response (a JSON body or a stream's SSE text) says were read from
    or written to the cache; None when it holds no usage (the call failed or was not logged).

    Raises:
        Implausible: a count is present but no plausible count (`plausible.count`).
    """
    if isinstance(response, str):
        if api == ANTHROPIC:
            response = anthropic_api.from_sse(response)[0]
        elif api == RESPONSES:
            response = openai_api.responses_from_sse(response)
        else:
            response = openai_api.chat_from_sse(response)
    usage = response.get("usage") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return None
    if api == ANTHROPIC:
        tokens = anthropic_api.tokens(usage)[0]
    elif api == RESPONSES:
        tokens = openai_api.responses_tokens(usage)
    else:
        tokens = openai_api.chat_tokens(usage)
    _uncached, read, written_5m, written_1h, *_ = tokens
    return read + written_5m + written_1h


def _request_id(record: dict[str, Any], number: int) -> str:
    """The call's id: the logged one, the response's, or its request-id header."""
    response = record.get("response")
    candidates: list[Any] = [record.get("id")]
    if isinstance(response, dict):
        body = response.get("body")
        headers = response.get("headers")
        candidates += [response.get("id"), body.get("id") if isinstance(body, dict) else None]
        if isinstance(headers, dict):
            candidates += [v for k, v in headers.items() if str(k).lower() == "request-id"]
    for candidate in candidates:
        if isinstance(candidate, str) and candidate:
            return candidate
    return f"line {number}"


def _trace_session(body: Any) -> str | None:
    metadata = body.get("metadata") if isinstance(body, dict) else None
    user = metadata.get("user_id") if isinstance(metadata, dict) else None
    if isinstance(user, str) and "_session_" in user:
        return user.rsplit("_session_", 1)[1]
    return None


def _anthropic_blocks(body: dict[str, Any]) -> list[LintBlock]:
    blocks = [_tool_block(f"tools[{i}]", tool) for i, tool in enumerate(_list(body.get("tools")))]
    system = body.get("system")
    if isinstance(system, str):
        blocks.append(LintBlock("system", "text", "system", system, raw=system))
    for index, part in enumerate(_list(system)):
        blocks.append(_part(f"system[{index}]", "system", part))
    blocks.extend(_messages(body.get("messages"), "messages"))
    return blocks


def _chat_blocks(body: dict[str, Any]) -> list[LintBlock]:
    blocks = [_tool_block(f"tools[{i}]", tool) for i, tool in enumerate(_list(body.get("tools")))]
    blocks.extend(_messages(body.get("messages"), "messages"))
    return blocks


def _responses_blocks(body: dict[str, Any]) -> list[LintBlock]:
    blocks: list[LintBlock] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        blocks.append(LintBlock("instructions", "text", "system", instructions, raw=instructions))
    blocks.extend(
        _tool_block(f"tools[{i}]", tool) for i, tool in enumerate(_list(body.get("tools")))
    )
    items = body.get("input")
    if isinstance(items, str):
        blocks.append(LintBlock("input", "text", "user", items, raw=items))
    else:
        blocks.extend(_messages(items, "input"))
    return blocks


def _messages(messages: Any, name: str) -> Iterator[LintBlock]:
    for index, message in enumerate(_list(messages)):
        if not isinstance(message, dict):
            continue
        role = str(message.get("role") or ("assistant" if "call_id" in message else "user"))
        role = "system" if role in ("system", "developer") else role
        content = message.get("content", message)
        if role == "tool" or message.get("tool_calls"):
            yield _chat_tool_block(f"{name}[{index}]", role, message)
        elif isinstance(content, str):
            yield LintBlock(f"{name}[{index}]", "text", role, content, raw=content)
        elif isinstance(content, list):
            for part_index, part in enumerate(content):
                yield _part(f"{name}[{index}].content[{part_index}]", role, part)
        else:
            yield _part(f"{name}[{index}]", role, message)


def _chat_tool_block(path: str, role: str, message: dict[str, Any]) -> LintBlock:
    """An OpenAI Chat tool call (assistant) or tool result (`tool` role): history, written once
    and repeated as it was, like Anthropic's tool_use and tool_result blocks; their call ids
    and outputs are no volatile prefix content."""
    content = message.get("content")
    if role == "tool":
        text = content if isinstance(content, str) else json.dumps(content)
        return LintBlock(path, "tool_result", role, text, raw=message)
    return LintBlock(path, "tool_use", role, json.dumps(message), raw=message)


def _part(path: str, role: str, part: Any) -> LintBlock:
    if isinstance(part, dict):
        kind = str(part.get("type") or "text")
        text = part.get("text")
        if not isinstance(text, str):
            text = json.dumps({k: v for k, v in part.items() if k != "cache_control"})
        return LintBlock(path, kind, role, text, cache_mark(part.get("cache_control")), part)
    return LintBlock(path, "text", role, str(part), raw=part)


def _tool_block(path: str, tool: Any) -> LintBlock:
    content = (
        {k: v for k, v in tool.items() if k != "cache_control"} if isinstance(tool, dict) else tool
    )
    mark = cache_mark(tool.get("cache_control")) if isinstance(tool, dict) else None
    return LintBlock(
        path,
        "tool",
        "tools",
        json.dumps(content, sort_keys=True),
        mark,
        tool,
        key_order=tuple(_keys(content)),
    )


def _keys(value: Any) -> Iterator[str]:
    """Every key of a JSON value, depth first, in the order written."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
