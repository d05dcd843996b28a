"""Provides `sniff monthly`: the numbers of `sniff report --by month`, as a table or JSON."""

from sniff.cli.periods import period_command

monthly = period_command(
    "monthly",
    "month",
    "One row per month (in --tz): requests, tokens by class, cost, hit rate, savings.",
)
