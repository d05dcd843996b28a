"""Lint's work grows with the text, not faster, and its figures stay those of the full work.

A prompt file's estimated saving replays 1,000 calls of it; replaying every paragraph of every
call made a 1 MB prompt take half a minute and gigabytes. The calls are replayed with the blocks
a cache cannot tell apart joined: the figures must be those of replaying every block, and a
long prompt must hand the cache engine no more blocks than a short one. The volatile-content
detector and the finding locator, once rescanning per match or per finding, must still answer
as before on texts with thousands of either.

Why no timings: machines are noisy. The work is counted instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from sniff.engine import build_prompts
from sniff.lint import savings
from sniff.lint.fix import fixed_text
from sniff.lint.inputs import body_prompt, text_prompt
from sniff.lint.prompts import LintPrompt
from sniff.lint.volatile import find_volatile, line_and_column
from sniff.model import Block
from sniff.pricing import PriceBook

STATIC = (
    "Read each file before you edit it, keep every change small, run the tests after each "
    "step and say what changed, naming the files and the reason for each change. "
) * 6


def _marked(text: str, ttl: str | None = None) -> dict[str, Any]:
    control = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return {"type": "text", "text": text, "cache_control": control}


def _anthropic() -> LintPrompt:
    """Five breakpoints (one past the API's four, which the cache ignores), far apart and
    close together, volatile blocks before and after them."""
    system: list[dict[str, Any]] = [{"type": "text", "text": f"{STATIC} ({n})"} for n in range(34)]
    system[3] = _marked(system[3]["text"], "1h")
    system[10]["text"] += " Today is 2026-03-05."
    system[25] = _marked(system[25]["text"])
    system[26]["text"] += " Run id run_8f3k2m9x7q1z4w."
    system[27] = _marked(system[27]["text"])
    system[30] = _marked(system[30]["text"])
    body = {
        "model": "claude-sonnet-4-5",
        "system": system,
        "messages": [{"role": "user", "content": [_marked("Fix the failing test.")]}],
    }
    return body_prompt("body.json", body, source_text="{}")


def _openai() -> LintPrompt:
    """Every prefix cached: what a call reads is up to its first volatile message."""
    messages = [{"role": "system", "content": STATIC}]
    messages += [
        {"role": "user" if n % 2 else "assistant", "content": f"{STATIC} ({n})"} for n in range(12)
    ]
    messages[7]["content"] += " Now: 2026-03-05T09:14:07Z."
    return body_prompt("chat.json", {"model": "gpt-4.1", "messages": messages}, source_text="{}")


def _markdown(paragraphs: int) -> LintPrompt:
    """A prompt file with a volatile paragraph and a placeholder among static paragraphs."""
    parts = [f"{STATIC} ({n})" for n in range(paragraphs)]
    parts[paragraphs // 3] = "Last synchronised at 2026-03-05T09:14:07Z."
    parts[paragraphs // 2] = "Address the user as {{ user_name }}."
    return text_prompt("agent.md", "\n\n".join(parts))


def _every_block(blocks: list[Block], per_call: list[bool]) -> Any:
    return list(zip(blocks, per_call, strict=True))


@pytest.mark.parametrize("calls_per_minute", [0.25, 1.0, 12.0])
@pytest.mark.parametrize(
    "prompt",
    [_markdown(30), _anthropic(), _openai()],
    ids=["markdown", "anthropic-marks", "openai-chat"],
)
def test_joined_blocks_give_the_estimate_of_every_block(
    prompt: LintPrompt, calls_per_minute: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    prices = PriceBook()
    joined = savings.file_saving(prompt, prices, calls_per_minute)
    monkeypatch.setattr(savings, "_joined", _every_block)
    assert joined is not None and joined == savings.file_saving(prompt, prices, calls_per_minute)


def test_a_longer_prompt_hands_the_cache_engine_no_more_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replayed: list[int] = []

    def counted(requests: Any, *args: Any) -> Any:
        requests = list(requests)
        replayed.append(sum(len(request.blocks) for request in requests))
        return build_prompts(requests, *args)

    monkeypatch.setattr(savings, "build_prompts", counted)
    for paragraphs in (12, 400):
        assert savings.file_saving(_markdown(paragraphs), PriceBook(), 1.0) is not None
    short, long = replayed[:2], replayed[2:]
    assert long == short  # a few blocks a call, however many paragraphs the file has
    assert sum(long) <= 4 * savings.CALLS


def test_thousands_of_matches_in_one_text_are_each_found_once() -> None:
    text = "Run at 2026-03-05T09:14:07Z, e.g. 2026-03-06 09:00:00; id req_8f3k2m9x7q1z. " * 3000
    found = find_volatile(text)
    # the timestamp's date and time are not findings of their own, nor the example's parts
    assert [v.kind for v in found] == ["timestamp", "request id"] * 3000
    assert all(text[v.start : v.end] == v.text for v in found)


def test_line_and_column_of_every_offset_of_a_long_text() -> None:
    text = "".join(f"line {n}\n" + "\n" * (n % 3) for n in range(2000))
    for offset in range(0, len(text) + 1, 7):
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert line_and_column(text, offset) == (line, column)


def test_fix_moves_repeated_paragraphs_as_it_moves_one() -> None:
    stamp = "Synchronised at 2026-03-05T09:14:07Z."
    text = f"Be brief.\n\n{stamp}\n\nBe brief.\n\nCite files.\n\n{stamp}\n"
    after = fixed_text(text_prompt("agent.md", text))
    assert after == f"Be brief.\n\nBe brief.\n\nCite files.\n\n{stamp}\n\n{stamp}\n"
