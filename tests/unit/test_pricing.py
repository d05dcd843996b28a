"""Prices: per model, date and long-context tier, from genai-prices; never $0 for an unknown model.

Expected prices are Anthropic's published per-million-token rates, written out as literals:
input, cache read, 5-minute cache write, 1-hour cache write, output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sniff.errors import UserError
from sniff.model import Usage
from sniff.price_table import CACHE_FILE, CACHE_FORMAT, PriceCache
from sniff.pricing import PriceBook, load_overrides

WHEN = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)
USAGE = Usage(
    input_tokens=1_234,
    cache_read_tokens=98_765,
    cache_write_5m_tokens=12_345,
    cache_write_1h_tokens=6_789,
    output_tokens=4_321,
)

SONNET_4 = (3.00, 0.30, 3.75, 6.00, 15.00)
OPUS_4_6 = (5.00, 0.50, 6.25, 10.00, 25.00)
HAIKU_4_5 = (1.00, 0.10, 1.25, 2.00, 5.00)


def expected_cost(usage: Usage, per_mtok: tuple[float, ...]) -> float:
    tokens = (
        usage.input_tokens,
        usage.cache_read_tokens,
        usage.cache_write_5m_tokens,
        usage.cache_write_1h_tokens,
        usage.output_tokens,
    )
    return sum(count * price for count, price in zip(tokens, per_mtok, strict=True)) / 1e6


@pytest.fixture
def book(tmp_path: Path) -> PriceBook:
    return PriceBook(cache=PriceCache(tmp_path / "prices"))


@pytest.mark.parametrize(
    ("model", "per_mtok"),
    [
        ("claude-sonnet-4-20250514", SONNET_4),
        ("claude-opus-4-6", OPUS_4_6),
        ("claude-haiku-4-5-20251001", HAIKU_4_5),
    ],
)
def test_cost_is_tokens_times_published_prices(book, model, per_mtok):
    cost = book.cost(model, WHEN, USAGE)
    assert cost is not None
    assert cost.input_usd == pytest.approx(1_234 * per_mtok[0] / 1e6, rel=1e-9)
    assert cost.cache_read_usd == pytest.approx(98_765 * per_mtok[1] / 1e6, rel=1e-9)
    assert cost.cache_write_5m_usd == pytest.approx(12_345 * per_mtok[2] / 1e6, rel=1e-9)
    assert cost.cache_write_1h_usd == pytest.approx(6_789 * per_mtok[3] / 1e6, rel=1e-9)
    assert cost.output_usd == pytest.approx(4_321 * per_mtok[4] / 1e6, rel=1e-9)
    assert cost.total_usd == pytest.approx(expected_cost(USAGE, per_mtok), rel=1e-9)


def test_savings_compare_with_every_prompt_token_at_the_input_price(book):
    cost = book.cost("claude-sonnet-4-20250514", WHEN, USAGE)
    assert cost is not None
    uncached = (USAGE.prompt_tokens * 3.00 + USAGE.output_tokens * 15.00) / 1e6
    assert cost.uncached_usd == pytest.approx(uncached, rel=1e-9)
    assert cost.savings_usd == pytest.approx(uncached - expected_cost(USAGE, SONNET_4), rel=1e-9)


@pytest.mark.parametrize("model", ["acme-super-1", "<synthetic>", ""])
def test_unknown_and_synthetic_models_are_unpriced_never_free(book, model):
    assert book.cost(model, WHEN, USAGE) is None
    assert book.rates(model, WHEN) is None
    assert book.is_priced(model) is False


def test_long_context_tier_applies_above_200k_prompt_tokens(book):
    model = "claude-sonnet-4-5-20250929"
    below = book.rates(model, WHEN, prompt_tokens=200_000)
    above = book.rates(model, WHEN, prompt_tokens=200_001)
    assert below is not None and above is not None
    as_mtok = lambda r: [round(x * 1e6, 9) for x in (r.input, r.cache_read, r.cache_write_5m)]  # noqa: E731
    assert as_mtok(below) == [3.00, 0.30, 3.75]
    assert as_mtok(above) == [6.00, 0.60, 7.50]
    # The tier is chosen by the whole prompt, cache reads included.
    small = Usage(input_tokens=1_000, cache_read_tokens=150_000, output_tokens=100)
    large = Usage(input_tokens=1_000, cache_read_tokens=250_000, output_tokens=100)
    assert book.cost(model, WHEN, small).cache_read_usd == pytest.approx(0.045, rel=1e-9)
    assert book.cost(model, WHEN, large).cache_read_usd == pytest.approx(0.150, rel=1e-9)


def test_long_context_output_is_priced_at_the_long_context_rate(book):
    usage = Usage(input_tokens=1_000, cache_read_tokens=249_000, output_tokens=10_000)
    cost = book.cost("claude-sonnet-4-5-20250929", WHEN, usage)
    assert cost is not None
    assert cost.output_usd == pytest.approx(10_000 * 22.50 / 1e6, rel=1e-9)
    assert cost.total_usd == pytest.approx((1_000 * 6.00 + 249_000 * 0.60 + 225_000) / 1e6)


@pytest.mark.parametrize(
    ("model", "when", "usage"),
    [
        ("claude-sonnet-4-20250514", WHEN, USAGE),
        ("claude-opus-4-6", datetime(2026, 4, 1, tzinfo=UTC), Usage(1_000, 240_000, 9_000, 0, 50)),
        pytest.param(
            "claude-opus-4-6",
            WHEN,
            Usage(1_000, 240_000, 9_000, 0, 5_000),
        ),
    ],
)
def test_cost_agrees_with_genai_prices_itself(book, model, when, usage):
    """sniff's fast per-token table gives the library's own answer, per date and tier."""
    from genai_prices import Usage as LibraryUsage
    from genai_prices.data_snapshot import get_snapshot

    _, info = get_snapshot().find_provider_model(model, None, None, None)
    library = info.get_prices(when).calc_price(
        LibraryUsage(
            input_tokens=usage.prompt_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            cache_write_5m_tokens=usage.cache_write_5m_tokens,
            cache_write_1h_tokens=usage.cache_write_1h_tokens,
            output_tokens=usage.output_tokens,
        )
    )
    cost = book.cost(model, when, usage)
    assert cost is not None
    assert cost.total_usd == pytest.approx(float(library["total_price"]), rel=1e-9)


@pytest.mark.parametrize(
    ("model", "provider_id", "model_ref"),
    [
        ("gemini-2.5-flash", None, "gemini-2.5-flash"),  # Gemini CLI: the id alone finds it
        ("anthropic/claude-opus-4.8-fast", "openrouter", "anthropic/claude-opus-4.8-fast"),
        ("mistralai/voxtral-small-24b-2507", "openrouter", "mistralai/voxtral-small-24b-2507"),
        ("moonshot-ai/kimi-k2.7-code", "moonshotai", "kimi-k2.7-code"),  # Kimi Code's vendor
    ],
)
def test_other_agents_model_ids_are_priced_where_their_vendor_or_router_is(
    book, model, provider_id, model_ref
):
    """A `vendor/model` id (OpenRouter's, Cline's, Kimi's) is priced at OpenRouter, else at its
    vendor under the price data's name for it: the library's own price for that provider."""
    from genai_prices.data_snapshot import get_snapshot

    _, info = get_snapshot().find_provider_model(model_ref, None, provider_id, None)
    rates = info.get_prices(WHEN)
    cost = book.cost(model, WHEN, Usage(input_tokens=1_000_000, output_tokens=1_000_000))
    assert cost is not None
    assert (cost.input_usd, cost.output_usd) == (
        pytest.approx(float(rates.input_mtok)), pytest.approx(float(rates.output_mtok))
    )  # fmt: skip


@pytest.mark.parametrize(
    ("model", "provider", "model_ref", "provider_id"),
    [
        ("glm-4.6", "zai", "glm-4.6", "zai"),  # OpenCode logs Z.ai's GLM by its provider
        ("qwen3-coder-plus", "qwen", "qwen/qwen3-coder-plus", "openrouter"),
    ],
)
def test_a_model_the_data_names_only_at_its_provider_is_priced_there(
    book, model, provider, model_ref, provider_id
):
    from genai_prices.data_snapshot import get_snapshot

    _, info = get_snapshot().find_provider_model(model_ref, None, provider_id, None)
    usage = Usage(input_tokens=1_000_000)
    assert book.cost(model, WHEN, usage) is None  # the id alone is priced nowhere
    cost = book.cost(model, WHEN, usage, provider)
    assert cost is not None
    assert cost.input_usd == pytest.approx(float(info.get_prices(WHEN).input_mtok))


@pytest.mark.parametrize("model", ["coder-model", "fixture-model", "acme/unknown-model-9"])
def test_a_model_no_vendor_prices_stays_unpriced(book, model):
    assert book.cost(model, WHEN, USAGE) is None
    assert book.cost(model, WHEN, USAGE, "anthropic") is None


# --- the price cache ---------------------------------------------------------------------------


def test_cached_prices_are_reused_without_the_library(tmp_path, monkeypatch):
    folder = tmp_path / "prices"
    first = PriceBook(cache=PriceCache(folder))
    rates = first.rates("claude-sonnet-4-20250514", WHEN)
    assert first.rates("acme-super-1", WHEN) is None
    first.save()
    assert (folder / CACHE_FILE).is_file()

    def no_library(self):
        raise AssertionError("the price library was consulted despite a warm cache")

    monkeypatch.setattr(PriceBook, "_snapshot", no_library)
    second = PriceBook(cache=PriceCache(folder))
    assert second.rates("claude-sonnet-4-20250514", WHEN) == rates
    assert second.rates("acme-super-1", WHEN) is None  # known unpriced, also cached
    assert second.cost("claude-sonnet-4-20250514", WHEN, USAGE).total_usd == pytest.approx(
        expected_cost(USAGE, SONNET_4), rel=1e-9
    )


@pytest.mark.parametrize("damage", ["garbage", "bad-table"])
def test_damaged_price_cache_is_ignored(tmp_path, damage):
    folder = tmp_path / "prices"
    folder.mkdir()
    if damage == "garbage":
        content = b"{not json"
    else:  # right format and library, but a table that cannot be read back
        identity = PriceCache(folder).identity
        table = {"periods": [{"start": None, "thresholds": [], "tiers": [{"input": "x"}]}]}
        models = {"claude-sonnet-4-20250514": table}
        kept = {"format": CACHE_FORMAT, "identity": identity, "library": "", "models": models}
        content = json.dumps(kept).encode()
    (folder / CACHE_FILE).write_bytes(content)
    book = PriceBook(cache=PriceCache(folder))
    cost = book.cost("claude-sonnet-4-20250514", WHEN, USAGE)
    assert cost is not None
    assert cost.total_usd == pytest.approx(expected_cost(USAGE, SONNET_4), rel=1e-9)
    book.save()  # and a good cache replaces the damaged one
    assert "claude-sonnet-4-20250514" in json.loads((folder / CACHE_FILE).read_bytes())["models"]


def test_a_cache_written_by_another_library_version_is_not_trusted(tmp_path):
    folder = tmp_path / "prices"
    book = PriceBook(cache=PriceCache(folder))
    book.rates("claude-sonnet-4-20250514", WHEN)
    book.save()
    path = folder / CACHE_FILE
    data = json.loads(path.read_bytes())
    data["identity"] = ["/elsewhere/genai_prices/data.py", 1, 2]
    tiers = data["models"]["claude-sonnet-4-20250514"]["periods"][0]["tiers"]
    tiers[:] = [dict.fromkeys(tiers[0], 1.0)]
    path.write_text(json.dumps(data))
    rates = PriceBook(cache=PriceCache(folder)).rates("claude-sonnet-4-20250514", WHEN)
    assert rates is not None
    assert rates.input == pytest.approx(3.00 / 1e6, rel=1e-9)


def test_default_price_cache_lives_in_sniff_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path / "mine"))
    book = PriceBook()
    book.rates("claude-haiku-4-5-20251001", WHEN)
    book.save()
    assert (tmp_path / "mine" / CACHE_FILE).is_file()


# --- --pricing files ---------------------------------------------------------------------------

ACME = (2.00, 0.20, 2.50, 4.00, 10.00)

TOML = """\
[models."acme-super-1"]
input_mtok = 2
cache_read_mtok = 0.2
cache_write_mtok = 2.5
cache_write_1h_mtok = 4
output_mtok = 10
"""

JSON = json.dumps(
    {
        "models": {
            "acme-super-1": {
                "input_mtok": 2,
                "cache_read_mtok": 0.2,
                "cache_write_mtok": 2.5,
                "cache_write_1h_mtok": 4,
                "output_mtok": 10,
            }
        }
    }
)


@pytest.mark.parametrize(("name", "text"), [("p.toml", TOML), ("p.json", JSON)])
def test_pricing_file_prices_a_made_up_model(tmp_path, book, name, text):
    path = tmp_path / name
    path.write_text(text)
    overrides = load_overrides(path)
    priced = PriceBook(overrides, cache=PriceCache(tmp_path / "c"))
    cost = priced.cost("acme-super-1", WHEN, USAGE)
    assert cost is not None
    assert cost.total_usd == pytest.approx(expected_cost(USAGE, ACME), rel=1e-9)
    assert priced.source().overrides == ("acme-super-1",)
    assert book.cost("acme-super-1", WHEN, USAGE) is None  # only where the file is given


def test_pricing_file_overrides_a_known_model(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('[models."claude-sonnet-4-20250514"]\ninput_mtok = 1\noutput_mtok = 2\n')
    book = PriceBook(load_overrides(path), cache=PriceCache(tmp_path / "c"))
    rates = book.rates("claude-sonnet-4-20250514", WHEN)
    assert rates is not None
    assert (rates.input, rates.output) == (pytest.approx(1e-6), pytest.approx(2e-6))


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("p.toml", "[models.m]\ninput_mtok = 1\noutput_mtk = 2\n", "unknown price key"),
        ("p.toml", "[models.m]\ninput_mtok = -1\n", "non-negative"),
        ("p.toml", '[models.m]\ninput_mtok = "cheap"\n', "non-negative"),
        ("p.toml", "[models.m]\noutput_mtok = 2\n", "input_mtok"),
        ("p.toml", "[models.m\ninput_mtok = 1\n", "not valid TOML"),
        ("p.json", '{"models": {"m": {"input_mtok": 1}', "not valid JSON"),
        ("p.json", '{"prices": {}}', '"models"'),
    ],
    ids=["bad-key", "negative", "string", "no-input", "bad-toml", "bad-json", "no-models"],
)
def test_bad_pricing_files_are_user_errors(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UserError) as error:
        load_overrides(path)
    assert message in str(error.value)
    assert str(path) in str(error.value)


def test_missing_pricing_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="nope.toml"):
        load_overrides(tmp_path / "nope.toml")
