"""Provides `sniff daily`: the numbers of `sniff report --by day`, as a table or JSON."""

from sniff.cli.periods import period_command

daily = period_command(
    "daily",
    "day",
    "One row per day (in --tz): requests, tokens by class, cost, hit rate, savings.",
)
