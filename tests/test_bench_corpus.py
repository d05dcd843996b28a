"""bench/gen_agents_corpus.py: the mixed-agent corpus is laid out as each agent lays its logs
out, every copy has identities and times of its own, and EXPECTED.json is the EXPECTED.md rows
times the copies (checked here against the rows' own numbers, and against sniff's scan).

Why test a benchmark's generator: the benchmark is only as exact as its expected totals, and
a copy that kept an identity would be counted once by the parsers, and the totals checked
against nothing.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import REPO, SHARED

sys.path.insert(0, str(REPO / "bench"))  # the bench scripts import each other by name

import agent_units  # noqa: E402
import bench_mixed  # noqa: E402
import gen_agents_corpus  # noqa: E402
from expected_md import Figures, read_expected  # noqa: E402

pytestmark = pytest.mark.skipif(
    not (SHARED / "agent-samples" / "EXPECTED.md").is_file()
    or not (SHARED / "bench" / "gen_corpus.py").is_file(),
    reason=f"shared samples or gen_corpus.py not found under {SHARED}",
)

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
KEYED = re.compile(r'"([A-Za-z_]*(?:id|Id|ID|uuid|Uuid))"\s*:\s*"([^"]+)"')
ISO = re.compile(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[^"]*)"')
KEPT = re.compile(r"\d{1,3}|main|codex|\[trimmed for fixture\]|[0-9a-f]{40}|bash_\d+|.*/.*")
"""Values of id-named fields that copies share on purpose: turn and todo ordinals, agent
names, blanked fixture values, git commits, shell ids, model names."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Two copies of every unit, the smallest corpus where copies can meet."""
    out = tmp_path_factory.mktemp("mixed")
    return out / "home", gen_agents_corpus.generate(0.01, out, SHARED, minimum=2)


def identities(text: str) -> set[str]:
    """UUIDs anywhere and the values of every id-named field but a model's or provider's,
    found without the generator's own lists."""
    found = set(UUID.findall(text))
    for key, value in KEYED.findall(text):
        if "model" not in key.lower() and "provider" not in key.lower():
            found.add(value)
    return {value for value in found if not KEPT.fullmatch(value)}


def test_expected_md_rows_are_read_as_written() -> None:
    rows = read_expected(SHARED)
    assert rows["claude-code:sniffly"] == Figures(90, 293, 4_302_385, 206_624, 19_313, 0)
    assert rows["claude-code:agtrace"] == Figures(7, 561, 93_553, 5_158, 974, 0)
    assert rows["codex:localpush"] == Figures(485, 3_150_601, 46_689_152, 0, 223_178, 82_134)
    assert rows["codex:agtrace"] == Figures(7, 3_828, 22_912, 0, 408, 128)
    assert rows["pi-agent"] == Figures(441, 1_073, 43_229_469, 4_296_232, 83_170, 0)
    assert rows.models("opencode")["fixture-model"] == Figures(2, 3, 7, 7, 5, 5)
    for agent in ("cline", "copilot", "gemini-cli", "kimi", "opencode", "pi-agent"):
        assert sum(rows.models(agent).values(), Figures()) == rows[agent]


def test_expected_json_is_the_rows_times_the_copies(corpus: tuple[Path, dict[str, Any]]) -> None:
    _, expected = corpus
    agents = expected["agents"]
    assert set(agents) == set(gen_agents_corpus.SHARE)
    assert agents["claude-code"]["copies"] == {
        "sniffly": 2,
        "claude-code-viewer": 2,
        "agtrace-claude": 2,
    }
    assert agents["claude-code"]["requests"] == 2 * (90 + 197 + 7)
    assert agents["claude-code"]["cache_write"] == 2 * (206_624 + 198_421 + 5_158)
    assert agents["codex"]["reasoning"] == 2 * (82_134 + 128)
    pi = agents["pi"]
    assert pi["copies"] == {"pi": 2}
    assert (pi["requests"], pi["cache_read"]) == (2 * 441, 2 * 43_229_469)
    assert pi["models"]["pi-fixture-model"]["requests"] == 4
    assert agents["qwen-code"]["input"] == 2 * 1_050
    assert agents["opencode"]["harnesses"] == ["opencode", "kilo"]
    assert expected["bytes"] == sum(agent["bytes"] for agent in agents.values())


def test_each_agent_is_laid_out_where_it_writes(corpus: tuple[Path, dict[str, Any]]) -> None:
    home, expected = corpus
    hex64, hex12 = "[0-9a-f]{64}", "[0-9a-f]{12}"
    layouts = {
        "claude-code": rf"\.claude/projects/-home-dev-project\d{{3}}/(agent-\w+|{UUID.pattern})"
        r"\.jsonl",
        "codex": r"\.codex/sessions/\d{4}/\d\d/\d\d/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-"
        rf"{UUID.pattern}\.jsonl",
        "pi": rf"\.pi/agent/sessions/--home-dev-project\d{{3}}--/[\dT-]+Z_{UUID.pattern}\.jsonl",
        "gemini-cli": rf"\.gemini/tmp/{hex64}/chats/session-[\dT-]+-[0-9a-f]{{8}}\.jsonl?",
        "qwen-code": rf"\.qwen/projects/-home-dev-project\d{{3}}/chats/{UUID.pattern}\.jsonl",
        "kimi": rf"\.kimi-code/sessions/wd_project\d{{3}}_{hex12}/session_{UUID.pattern}/"
        r"(state\.json|agents/(main|agent-0)/wire\.jsonl)",
        "cline": r"\.cline/data/sessions/(\d{13}_[a-z]{5})/\1(\.messages)?\.json",
        "copilot": rf"\.copilot/session-state/{UUID.pattern}/events\.jsonl",
        "opencode": r"\.local/share/(opencode/opencode|kilo/kilo)\.db|"
        r"\.local/share/opencode/storage/message/ses_\w+/msg_\w+\.json",
    }
    found: Counter[str] = Counter()
    for path in home.rglob("*"):
        if path.is_file():
            relative = path.relative_to(home).as_posix()
            agent = [a for a, pattern in layouts.items() if re.fullmatch(pattern, relative)]
            assert len(agent) == 1, relative
            found[agent[0]] += 1
    assert found == {agent: v["files"] for agent, v in expected["agents"].items()}
    # two copies of every file of every unit (OpenCode: two databases and two message files)
    assert found["kimi"] == found["cline"] // 2 * 3 == 6
    assert found["copilot"] == 6 and found["opencode"] == 4 and found["pi"] == 4


def test_no_identity_is_shared_by_two_copies(corpus: tuple[Path, dict[str, Any]]) -> None:
    """Every identity of a copy is its own: none is the sample's, none another copy's, so the
    corpus holds two new identities for each of a unit's (OpenCode's database apart)."""
    home, _ = corpus
    per_unit = []
    for unit in agent_units.UNITS:
        texts = [p.read_text(encoding="utf-8") for pattern in unit.files
                 for p in SHARED.glob(pattern) if p.suffix in (".json", ".jsonl")]  # fmt: skip
        per_unit.append(set().union(*map(identities, texts)))
    copied = set().union(
        *(identities(p.read_text(encoding="utf-8")) for p in home.rglob("*.json*"))
    )
    assert not copied & set().union(*per_unit)
    assert len(copied) == 2 * sum(map(len, per_unit)) > 2_000


def test_database_rows_are_the_dumps_rows_with_new_ids(
    corpus: tuple[Path, dict[str, Any]],
) -> None:
    home, _ = corpus
    ids: list[str] = []
    for name in ("opencode/opencode.db", "kilo/kilo.db"):
        with sqlite3.connect(home / ".local" / "share" / name) as db:
            assert db.execute("SELECT count(*) FROM migration").fetchone() == (39,)
            ids += [row[0] for row in db.execute("SELECT id FROM part UNION ALL "
                                                 "SELECT id FROM message")]  # fmt: skip
    assert len(ids) == len(set(ids)) == 2 * (6 + 4)
    assert not [i for i in ids if "fixture" in i]


def test_every_copy_has_times_of_its_own(corpus: tuple[Path, dict[str, Any]]) -> None:
    home, _ = corpus
    firsts: list[str] = []
    for path in home.rglob("*.json*"):
        stamp = ISO.search(path.read_text(encoding="utf-8"))
        if stamp and not path.name.endswith("state.json"):
            firsts.append(stamp.group(1))
    assert len(firsts) == len(set(firsts)) > 30


def test_its_size_is_the_target_with_half_claude_code_and_codex(tmp_path: Path) -> None:
    expected = gen_agents_corpus.generate(12, tmp_path, SHARED)
    agents = expected["agents"]
    assert 12 * 2**20 <= expected["bytes"] <= 1.3 * 12 * 2**20
    half = (agents["claude-code"]["bytes"] + agents["codex"]["bytes"]) / expected["bytes"]
    assert 0.4 < half < 0.6
    assert max(agents, key=lambda a: agents[a]["bytes"]) in ("claude-code", "pi")


def test_sniff_counts_every_agent_of_the_home_as_expected_json(
    corpus: tuple[Path, dict[str, Any]],
) -> None:
    home, expected = corpus
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", "--no-index", str(home)])
    assert result.exit_code == 0, result.output
    checked = bench_mixed.check(expected, bench_mixed.sniff_by_harness(result.stdout))
    assert {agent: row["differences"] for agent, row in checked.items() if not row["equal"]} == {}
    assert set(checked) == set(gen_agents_corpus.SHARE)


def test_the_benchmark_finds_the_home_through_home_alone(
    corpus: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One round without the peer: sniff finds every agent's folder from HOME (the agents'
    variables unset, even when set here), and its cold and warm totals are the plain scan's."""
    home, _ = corpus
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "nowhere"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "nowhere"))
    report = bench_mixed.bench(home.parent, 1, None)
    assert all(row["equal"] for row in report["expected"].values()), report["expected"]
    assert report["cold_warm_equal_no_index"]
    assert set(report["tools"]) == {"sniff --no-index", "sniff cold", "sniff warm"}
    assert "ratios" not in report and "ccusage" not in report
    assert "skipped (ccusage missing)" in bench_mixed.table(report)


def test_ccusage_agents_are_summed_over_days_under_sniffs_names() -> None:
    row = {"inputTokens": 1, "cacheReadTokens": 2, "cacheCreationTokens": 3, "outputTokens": 4}
    daily = {"daily": [{"agents": [{"agent": "claude", **row}, {"agent": "pi", **row}]},
                       {"agents": [{"agent": "claude", **row, "outputTokens": 10}]}]}  # fmt: skip
    totals = bench_mixed.ccusage_by_agent(json.dumps(daily))
    assert totals == {
        "claude-code": {"input": 2, "cache_read": 4, "cache_write": 6, "output": 14},
        "pi": {"input": 1, "cache_read": 2, "cache_write": 3, "output": 4},
    }
    sniff = {"claude-code": {**totals["claude-code"], "requests": 9, "reasoning": 0},
             "cline": dict.fromkeys(bench_mixed.CLASSES, 1)}  # fmt: skip
    peer = bench_mixed.compare_peer(sniff, totals)
    assert peer["compared"] == {"claude-code": {"equal": True, "differences": {}}}
    assert (peer["sniff_only"], peer["ccusage_only"]) == (["cline"], ["pi"])


def test_a_difference_and_a_harness_of_no_agent_fail_the_check() -> None:
    one = dict.fromkeys(bench_mixed.CLASSES, 1)
    expected = {"agents": {"opencode": {"harnesses": ["opencode", "kilo"], **one, "input": 2}}}
    harnesses = {"opencode": one, "kilo": dict.fromkeys(bench_mixed.CLASSES, 0), "api": one}
    checked = bench_mixed.check(expected, harnesses)
    assert checked["opencode"]["differences"] == {
        "input": [1, 2],
    }
    assert checked["api"] == {"equal": False, "sniff": one, "differences": "not copied"}
