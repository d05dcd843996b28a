"""Provides the vendor of a model an agent logged without naming one (Copilot, Amp, Droid).

Why: the cache analyses choose their policy by provider (Anthropic's breakpoints against
OpenAI's automatic caching), and a cache write of unknown lifetime is assumed 5-minute only for
Anthropic's models. Agents that proxy many vendors' models often log the model's name alone;
its family names the vendor.
"""

from __future__ import annotations

FAMILIES: tuple[tuple[str, str], ...] = (
    ("claude", "anthropic"),
    ("gpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex", "openai"),
    ("gemini", "google"),
    ("grok", "xai"),
)
"""Model-name beginnings (after any `vendor/` prefix) and the vendor they name."""


def vendor_of(model: str, default: str) -> str:
    """The vendor a model's name says (`claude-sonnet-4.5`: anthropic); `default` when its name
    says none."""
    name = model.lower().rsplit("/", 1)[-1]
    for start, vendor in FAMILIES:
        if name.startswith(start):
            return vendor
    return default


def is_anthropic(provider: str, model: str) -> bool:
    """Whether a call went to one of Anthropic's models, whose cache writes have a lifetime."""
    return provider == "anthropic" or vendor_of(model, provider) == "anthropic"
