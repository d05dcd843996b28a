"""`redact_secrets`: each credential shape redacted, its vendor's prefix kept; ordinary prompt
text (counts, ids, paths, placeholders, prose) left alone; excerpts cut inside a key."""

from __future__ import annotations

import random
import string

import pytest

from sniff.redact_secrets import redact_excerpt, redact_secrets, secret_spans

RNG = random.Random(4)
ALNUM = string.ascii_letters + string.digits


def rand(length: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


URL_SAFE = ALNUM + "-_"
SHAPES = [
    ("sk-ant-", "api03-" + rand(93, URL_SAFE) + "AA", ""),
    ("sk-ant-", "admin01-" + rand(93, URL_SAFE) + "AA", ""),
    ("sk-proj-", rand(74, URL_SAFE) + "T3BlbkFJ" + rand(74, URL_SAFE), ""),
    ("sk-svcacct-", rand(64, URL_SAFE), ""),
    ("sk-admin-", rand(64, URL_SAFE), ""),
    ("sk-", rand(20) + "T3BlbkFJ" + rand(20), ""),
    ("AKIA", rand(16, string.ascii_uppercase + string.digits), ""),
    ("ghp_", rand(36), ""),
    ("ghs_", rand(36), ""),
    ("github_pat_", rand(22) + "_" + rand(59), ""),
    ("glpat-", rand(20, URL_SAFE), ""),
    ("AIza", "Sy" + rand(33, URL_SAFE), ""),
    ("ya29.", rand(60, URL_SAFE), ""),
    ("GOCSPX-", rand(28, URL_SAFE), ""),
    ("xoxb-", "1234567890-" + rand(24), ""),
    ("sk_live_", rand(24), ""),
    ("hf_", rand(34), ""),
    ("npm_", rand(36), ""),
    ("eyJ", "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + rand(43, URL_SAFE), ""),
    ("-----BEGIN RSA PRIVATE KEY-----", "\n" + rand(64) + "\n" + rand(64) + "\n", "-----END"),
    ("postgres://deploy:", rand(12), "@db.internal:5432/shop"),
    ("Authorization: Bearer ", rand(40, URL_SAFE + "."), ""),
    ("Authorization: Basic ", rand(28) + "==", ""),
    ("ANTHROPIC_API_KEY=", "sk-ant-api03-" + rand(40, URL_SAFE), ""),
    ("export DEPLOY_TOKEN=", rand(32), ""),
    ("aws_secret_access_key = ", rand(40, ALNUM + "/+"), ""),
    ('{"client_secret": "', rand(32), '"}'),
    ('{\\"api_key\\": \\"', rand(32), '\\"}'),
    ("password: ", rand(20, ALNUM + "!@#"), ""),
    ("db_password => '", rand(24), "'"),
]


@pytest.mark.parametrize(("before", "secret", "after"), SHAPES, ids=[s[0] for s in SHAPES])
def test_each_shape_is_redacted_and_what_stands_before_it_kept(
    before: str, secret: str, after: str
) -> None:
    text = f"Use this: {before}{secret}{after} and go on."
    shown = redact_secrets(text)
    assert secret not in shown and secret[:10] not in shown and secret[-10:] not in shown
    if before.startswith("ANTHROPIC"):  # the vendor's prefix wins over the name's
        assert shown == "Use this: ANTHROPIC_API_KEY=sk-ant-…[redacted] and go on."
    else:
        assert shown == f"Use this: {before}…[redacted]{after} and go on."
    assert redact_secrets(shown) == shown  # once redacted, nothing more to find


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 32000, cache_read_input_tokens: 1234567890123456",
        "token: ${GITHUB_TOKEN}; api_key=YOUR_API_KEY_HERE; password: {{ db_password }}",
        "secret_file=/home/dana/.config/app/secrets.json",
        "the task-abcdefghijklmnopqrstuvwxyz0123 and desk-ant-lamp, ask-proj-budget",
        "request req_011CPnvRoMGu5xEDe1n8W4Qk, message msg_01XFDUDYJgAACzvnptvVoYEL",
        "session 515c8333-3a04-4486-ba63-376f81227b4f at 2025-05-29T21:38:30Z",
        "See https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching for keys.",
        "A bearer token authenticates the caller; basic auth sends a password.",
        "key: aaaaaaaaaaaaaaaa1111111111111111",  # letters and digits, but nothing random
        "sk-ant- is the prefix of Anthropic keys; AKIA starts AWS ones; ghp_ GitHub's.",
    ],
)
def test_ordinary_prompt_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == text
    assert secret_spans(text) == []


def test_an_excerpt_cut_inside_a_key_redacts_the_part_it_shows() -> None:
    key = "sk-ant-api03-" + rand(93, URL_SAFE) + "AA"
    text = f"You are helpful. ANTHROPIC_API_KEY={key} now 2025-05-29T21:38:30Z, be brief."
    at = text.index("2025")
    marks = ((at, "»"), (at + 20, "«"))
    shown = redact_excerpt(text, at - 30, at + 30, marks)
    assert shown == "…[redacted] now »2025-05-29T21:38:30Z«, be brief"
    # cut after the key's start: the prefix shows, the rest does not
    start = text.index("sk-ant")
    assert redact_excerpt(text, start - 4, start + 20) == "KEY=sk-ant-…[redacted]"


def test_marks_inside_a_key_go_around_its_placeholder() -> None:
    key = "ghp_" + rand(36)
    text = f"token {key} end"
    inside = text.index(key) + 10
    shown = redact_excerpt(text, 0, len(text), ((inside, "»"), (inside + 4, "«")))
    assert shown == "token ghp_…[redacted]»« end"


def test_a_key_cut_at_the_end_of_a_text_is_still_redacted() -> None:
    for prefix, kept in (("sk-ant-api03-", "sk-ant-"), ("sk-proj-", "sk-proj-"), ("ghp_", "ghp_")):
        cut = prefix + rand(12)
        assert redact_secrets(f"pasted {cut}") == f"pasted {kept}…[redacted]"
