"""Access to the server-side rules (defaulting and validation) of the scheduling objects."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any, Protocol, cast

RULES_MODULE = "workloadbuilder.testing.rules"


class Rules(Protocol):
    """What the test server needs from :mod:`workloadbuilder.testing.rules`."""

    def apply_defaults(self, group: str, kind: str, obj: dict[str, Any]) -> None: ...

    def validate_object(
        self,
        group: str,
        version: str,
        kind: str,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        gates: frozenset[str],
    ) -> list[dict[str, str]]: ...


class _NoRules:
    """Stand-in when the rules module is not installed: no defaults, nothing invalid."""

    def apply_defaults(self, group: str, kind: str, obj: dict[str, Any]) -> None:
        return None

    def validate_object(
        self,
        group: str,
        version: str,
        kind: str,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        gates: frozenset[str],
    ) -> list[dict[str, str]]:
        return []


@cache
def load_rules() -> Rules:
    """The rules module, or a permissive stand-in if it does not exist."""
    try:
        return cast(Rules, importlib.import_module(RULES_MODULE))
    except ModuleNotFoundError as exc:
        if exc.name != RULES_MODULE:
            raise
        return _NoRules()
