"""Provides the one way out for text read from a log: each output kind's function that makes a
string from a log safe to show there (a terminal, the status bar, a CSV cell, a Markdown cell).

Why: a transcript holds whatever a model, a tool, a web page or a colleague's branch name put
there. Printed as it is, an escape sequence retitles or clears the user's terminal, a CR hides
the rest of a table row, a cell starting with `=` runs as a formula in a spreadsheet, a `<script>`
runs where Markdown is rendered to HTML, and an API key pasted into a tool's output ends up in a
report meant for the team. So every output kind has one function here, and every string from a
log passes through it before it is shown:

- `visible`: control characters become visible stand-ins, never bytes a terminal obeys;
- `terminal`: `visible` after `redact_secrets` (Rich markup is never parsed from log text: sniff's
  consoles have markup off, see `sniff.present.terminal.safe_console`);
- `one_line`: the same, on one line (the status bar);
- `csv_cell`: a cell a spreadsheet shows as text, never runs as a formula;
- `markdown_text`: Markdown that neither breaks a table, nor embeds HTML, nor makes a link;
- `html_text`: HTML text and attribute values.

The stand-ins: a C0 control becomes its Unicode control picture (ESC `␛`, BEL `␇`, CR `␍`;
a line break or a tab becomes a space where the text must stay on one line), DEL `␡`, and C1
controls and the bidirectional overrides (which reorder what a reader sees, "Trojan Source")
`�`. No stand-in is itself a control, so
each function can run twice with the same result.
"""

from __future__ import annotations

import html

from sniff.redact_secrets import redact_secrets

REPLACEMENT = "\ufffd"
BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
"""LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI."""

_ANY_LINE: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20)},
    0x7F: "\u2421",
    **{code: REPLACEMENT for code in range(0x80, 0xA0)},
    **{code: REPLACEMENT for code in BIDI_CONTROLS},
}
ONE_LINE = str.maketrans({**_ANY_LINE, 0x0A: " ", 0x09: " "})
"""Every control made visible; a line break or a tab becomes a space."""
LINES = str.maketrans({**_ANY_LINE, 0x0A: "\n", 0x09: "\t"})
"""Every control made visible but the line break and the tab, which a terminal lays out."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP's list for CSV injection)."""


def visible(text: str, *, lines: bool = True) -> str:
    """`text` with its control characters shown as stand-ins; line breaks and tabs are kept
    when `lines` (a block of text), made spaces when not (a cell, a one-line field)."""
    return text.translate(LINES if lines else ONE_LINE)


def terminal(text: str, *, lines: bool = True) -> str:
    """Text from a log as a terminal may show it: secrets redacted, controls made visible."""
    return visible(redact_secrets(text), lines=lines)


def one_line(text: str) -> str:
    """Text from a log for a one-line field (the status bar): as `terminal`, on one line."""
    return terminal(text, lines=False)


def csv_cell(value: object) -> object:
    """A CSV cell from a log: text redacted, on one line, and prefixed with `'` where a
    spreadsheet would read it as a formula; numbers and None are passed as they are."""
    if not isinstance(value, str):
        return value
    shown = terminal(value, lines=False)
    return "'" + shown if value.startswith(FORMULA_STARTS) else shown


MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]|"})
"""Markdown's characters that make code, emphasis, links and table columns, backslash-escaped
(CommonMark lets any ASCII punctuation be)."""


def markdown_text(text: str) -> str:
    """Text from a log in Markdown (a table cell, a list item): redacted, on one line, HTML
    escaped (Markdown passes raw HTML through to the page it renders), and what would make
    code, emphasis, a link or a new table column escaped."""
    return html.escape(terminal(text, lines=False), quote=False).translate(MARKDOWN)


def html_text(text: str) -> str:
    """Text from a log in HTML, as text or as a quoted attribute's value."""
    return html.escape(terminal(text))
