"""Provides `sniff weekly`: the numbers of `sniff report --by week`, as a table or JSON."""

from sniff.cli.periods import period_command

weekly = period_command(
    "weekly",
    "week",
    "One row per ISO week (Monday to Sunday, in --tz): requests, tokens, cost, hit rate, savings.",
)
