"""Where the repository's files are, for tests that read docs, profiles and fixtures."""

from pathlib import Path

#: The repository's top folder.
REPO = Path(__file__).resolve().parents[2]
