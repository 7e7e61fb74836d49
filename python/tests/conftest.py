"""The shared fixtures (vlak_fixtures.py; src/ops/conftest.py imports the same ones)."""
from vlak_fixtures import restore_globals, rng, target, torch  # noqa: F401
