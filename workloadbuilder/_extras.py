"""The optional extras: which modules each one brings, and one clear error when one is missing."""

from __future__ import annotations

from importlib.util import find_spec

__all__ = ["EXTRAS", "missing_message", "require"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "aio": ("kubernetes_asyncio", "aiohttp", "tenacity", "prometheus_client"),
    "testing": ("aiohttp", "kubernetes_asyncio"),
    "cli": ("typer", "rich", "kubernetes_asyncio", "aiohttp", "tenacity", "prometheus_client"),
    "polyaxon": ("polyaxon",),
}
"""Each extra of the package and the top-level modules it installs."""


def missing_message(extra: str, what: str) -> str | None:
    """One line saying that ``what`` needs ``extra`` and how to install it; ``None`` when
    every module of the extra is importable."""
    missing = [m for m in EXTRAS[extra] if find_spec(m) is None]
    if not missing:
        return None
    return (
        f"{what} needs the [{extra}] extra: pip install 'workloadbuilder[{extra}]'"
        f" ({', '.join(missing)} not installed)"
    )


def require(extra: str, what: str) -> None:
    """Raise ``ModuleNotFoundError`` with :func:`missing_message` if ``extra`` is missing."""
    message = missing_message(extra, what)
    if message is not None:
        raise ModuleNotFoundError(message, name=f"workloadbuilder[{extra}]")
