"""Provides the words of `sniff statusline`'s options, said once for its two readers: the light
argparse parser the console script uses (`sniff.statusline.run`) and the typer command whose
`--help` reads like every other command's (`sniff.cli.commands.statusline`)."""

from __future__ import annotations

PARTS = ("model", "session", "cache", "today", "block", "limits", "hit", "break")
"""Every part the line can show, in its default order: what cannot wait (the cache's last
minute) before what a narrow status bar may cut. `cache` and `limits` show only where Claude
Code's input tells them."""
SUMMARY = "One line for Claude Code's status bar, from the status-line JSON on stdin."
TIMEOUT = 0.5
"""Seconds to wait for stdin: a status bar asks again soon, and must not hang."""
HELP = {
    "parts": f"The parts to show, comma-separated, of: {', '.join(PARTS)} (default: all, in"
    " this order).",
    "plain": "No colours.",
    "color": "Colours even when not on a terminal.",
    "timeout": f"Seconds to wait for the JSON on stdin (default: {TIMEOUT:g}).",
    "tz": "Time zone of today's cost, e.g. Europe/Paris. Default: local.",
}
"""Each option's help, by its name."""
