"""Provides the colours the browser paints data with, taken from the running theme.

Why from the theme: fixed colours that read well on a dark background vanish on a light one.
Textual themes define success, warning and error colours chosen for their own background.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App


@dataclass(frozen=True, slots=True)
class Palette:
    """Colours (`#rrggbb`) for what the cache did, and for emphasis.

    Text takes the theme's text variants (made to read on its background); bars, which are
    solid blocks, take the plain ones.
    """

    read: str
    """Text about tokens read from the cache: the saving."""
    written: str
    """Text about tokens written to the cache."""
    uncached: str
    """Text about tokens paid at the full input price."""
    bar_read: str
    bar_written: str
    bar_uncached: str
    muted: str


def palette(app: App[object]) -> Palette:
    """The palette of the app's current theme."""
    variables = app.get_css_variables()
    return Palette(
        read=_solid(variables.get("text-success", "green")),
        written=_solid(variables.get("text-warning", "yellow")),
        uncached=_solid(variables.get("text-error", "red")),
        bar_read=_solid(variables.get("success", "green")),
        bar_written=_solid(variables.get("warning", "yellow")),
        bar_uncached=_solid(variables.get("error", "red")),
        muted=_solid(variables.get("foreground-darken-2", variables.get("foreground", "white"))),
    )


def _solid(colour: str) -> str:
    """`#rrggbb` without the alpha some theme variables carry (Rich has no alpha)."""
    return colour[:7] if colour.startswith("#") and len(colour) == 9 else colour
