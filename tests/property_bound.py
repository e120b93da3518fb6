"""How many examples a property test draws: its own count, at most the hypothesis profile's.

``@settings(max_examples=bounded(300))``: the README's run (profile ``bounded``, and ``ci``
under ``CI``) draws at most 40 examples a property; ``--hypothesis-profile thorough`` draws
each test's own count (and 300 for a plain ``@given``)."""

from __future__ import annotations

from hypothesis import settings


def bounded(count: int) -> int:
    """``count``, at most the loaded profile's ``max_examples``."""
    return min(count, settings.default.max_examples)
