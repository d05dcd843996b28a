"""Provides `sniff tui`: a Textual browser from the archive's totals down to one request.

`app` owns the data and the workers; `screens/` present it (they read the app through
`screens.base.Browser`, never import it); `widgets/` are the parts screens share. May use the
Workspace, the analyses and the presenters' helpers; never ingest's modules directly (an
import-linter contract). Importing this package imports Textual; the CLI imports it only when
`sniff tui` runs.
"""

from sniff.tui.app import SniffApp, make_app

__all__ = ["SniffApp", "make_app"]
