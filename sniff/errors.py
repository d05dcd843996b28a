"""Provides the errors sniff reports to a user as one clear line instead of a traceback."""

from __future__ import annotations


class SniffError(Exception):
    """Base of every error sniff expects and explains."""


class UserError(SniffError):
    """A usage or input error: the message names what is wrong; the exit code is 2."""
