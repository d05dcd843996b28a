"""Provides what the linter reads: prompt files, request bodies, and logged requests.

Prompt files are plain text or Markdown (a system prompt or template: one block per paragraph),
or JSON (one request body for the Anthropic Messages, OpenAI Chat or Responses API, or a list of
them). Logs with request bodies (claude-trace, request logs) give one prompt per logged request,
in the order they were sent, from the records the caller read them into (`Prompts.TEXT`); logs
without (Claude Code, Codex) feed only the rules about chains.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sniff.errors import UserError
from sniff.ingest.files.discover import LOG_SUFFIX, QUIET_SUFFIXES, expand
from sniff.ingest.prompt_text import maker, read_body
from sniff.lint.prompts import LintBlock, LintPrompt, lint_block
from sniff.model import Agent, Block, Dataset, Sent

TEXT = "text"
DOCUMENTATION = frozenset({"README", "CHANGELOG", "CONTRIBUTING", "LICENSE", "NOTICE", "AUTHORS"})
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".prompt", ".jinja", ".j2", ".tmpl"})


def load_prompts(paths: list[Path]) -> tuple[list[LintPrompt], list[Path]]:
    """Prompts from prompt files; and the logs to read the rest from (`logged_prompts`).

    A file is a log (`*.jsonl`) or a prompt file; a folder is walked for logs as every command
    walks it (`discover.expand`): the Markdown and text beside logs are notes, not prompts
    (`prompt_files` finds those of a folder of prompts). An export folder holds no prompts.

    Raises:
        UserError: a path does not exist, a folder holds no log, or a prompt file cannot be
            read.
    """
    prompts: list[LintPrompt] = []
    logs: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UserError(f"no such file or directory: {path}")
        if path.is_file() and path.suffix != LOG_SUFFIX:
            prompts.extend(_prompt_file(path))
            continue
        # the other agents' JSON documents and databases hold no prompt text to lint
        sources = [source for source in expand([path]) if not source.path.endswith(QUIET_SUFFIXES)]
        if not sources:
            raise UserError(_no_logs(path))
        logs.extend(Path(source.path) for source in sources)
    return prompts, logs


def logged_prompts(dataset: Dataset, logs: list[Path]) -> tuple[list[LintPrompt], list[Path]]:
    """The logged requests of `dataset` (read from `logs` with `Prompts.TEXT`) whose bodies
    it holds, as prompts in the order of their logs and lines; and the logs without any."""
    order = {str(log): index for index, log in enumerate(logs)}
    prompts = []
    for request in dataset.requests:
        if request.sent is None or request.file not in order:
            continue
        usage = request.usage
        prompts.append(
            _prompt(
                request.file,
                request.blocks,
                request.sent,
                request=request.sent.label or f"line {request.line}",
                line=request.line,
                session=request.session_id,
                started=request.started_at.timestamp() if request.started_at else None,
                helper=request.agent in (Agent.COMPACTION, Agent.OTHER),
                cache_usage=None
                if request.error or not usage.total_tokens  # none logged
                else usage.prompt_tokens - usage.input_tokens,
            )
        )
    prompts.sort(key=lambda prompt: (order[prompt.file], prompt.line))
    with_prompts = {prompt.file for prompt in prompts}
    return prompts, [log for log in logs if str(log) not in with_prompts]


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
    return _prompt(file, *read_body(body), body=body, **extra)


def _prompt(file: str, blocks: tuple[Block, ...], sent: Sent, **extra: Any) -> LintPrompt:
    viewed = tuple(lint_block(block) for block in blocks)
    images = any(block.kind in ("image", "input_image", "image_url") for block in viewed)
    params = {**sent.params, "images": images}
    return LintPrompt(file, viewed, sent.api, sent.model, params, **extra)


def text_prompt(file: str, text: str) -> LintPrompt:
    """A plain prompt file: a system prompt, one block per paragraph."""
    blocks: list[LintBlock] = []
    offset, make = 0, maker()
    for number, paragraph in enumerate(text.split("\n\n"), start=1):
        if paragraph.strip():
            block = make(f"paragraph {number}", "text", "system", paragraph, paragraph)
            blocks.append(LintBlock(block, paragraph, offset))
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
