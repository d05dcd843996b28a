"""Provides `--redact` for a shared folder: users, projects, git branches, repositories and file
paths replaced by pseudonyms, the HMAC-SHA256 of the name under a team's salt.

Why keyed and not a plain hash: a project's or user's name is easy to guess, and a plain hash
of a guess would confirm it; without the salt nobody can. Why one salt for the team: the same
name gets the same pseudonym on every machine, so the team's figures still add up per project.
The salt is read from `--salt-file` or `SNIFF_TEAM_SALT`, and never written anywhere.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path

from msgspec.structs import replace

from sniff.errors import UserError
from sniff.model import Request

SALT_VARIABLE = "SNIFF_TEAM_SALT"
DIGITS = 6
"""Hex digits of a pseudonym: a team has far fewer names than the 16 million they tell apart."""


@dataclass(frozen=True, slots=True)
class Pseudonyms:
    """Names replaced by `<kind>-<digest>` under one salt."""

    salt: bytes

    def of(self, kind: str, name: str) -> str:
        """The pseudonym of `name`, a `kind` (user, project, branch, repo, path)."""
        digest = hmac.new(self.salt, f"{kind}\0{name}".encode(), hashlib.sha256).hexdigest()
        return f"{kind}-{digest[:DIGITS]}"

    def request(self, request: Request) -> Request:
        """`request` with its project, branch, repository and log file pseudonymised."""
        branch, repository = request.git_branch, request.repository
        return replace(
            request,
            project=self.of("project", request.project),
            git_branch=None if branch is None else self.of("branch", branch),
            repository=None if repository is None else self.of("repo", repository),
            file=self.of("path", request.file),
        )


def team_salt(salt_file: Path | None) -> Pseudonyms:
    """The pseudonyms of the salt in `salt_file`, else in `SNIFF_TEAM_SALT`.

    Raises:
        UserError: neither gives one, or the file cannot be read.
    """
    if salt_file is not None:
        try:
            salt = salt_file.read_bytes().strip()
        except OSError as error:
            raise UserError(f"cannot read {salt_file}: {error.strerror or error}") from None
    else:
        salt = os.environ.get(SALT_VARIABLE, "").strip().encode()
    if not salt:
        raise UserError(f"--redact needs the team's salt: --salt-file PATH or {SALT_VARIABLE}")
    return Pseudonyms(salt)
