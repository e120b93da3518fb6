"""How the command line reads, kubectl's way: help without type placeholders (``<bool>``,
``<list[Path]>``), choices listed, and a wrong command line as one ``error:`` line."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from rich.console import Console
from typer._click import ClickException, Context, Parameter  # typer's own click
from typer.core import TyperCommand, TyperGroup

__all__ = ["Command", "Group"]


def _value_label(param: Parameter) -> str | None:
    """What the help shows after an option: its metavar, or its choices; nothing for a flag
    or an argument (whose name is its metavar already)."""
    if param.param_type_name == "argument":
        return None
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    described = getattr(param, "type_descriptor", None)  # typer's; else click's choice type
    choices = getattr(described, "choices", None) or getattr(
        getattr(param, "type", None), "choices", None
    )
    if choices:
        return "|".join(str(getattr(c, "value", c)) for c in choices)
    if param.metavar:
        return param.metavar
    return param.name.upper() if param.name else None


def _plain(params: list[Parameter]) -> list[Parameter]:
    for param in params:
        label = _value_label(param)
        # typer asks each parameter for its type column; answer with the label instead
        setattr(param, "display_type_rich", lambda ctx, label=label: label)  # noqa: B010
        setattr(param, "display_type", lambda ctx, label=label: label or "")  # noqa: B010
    return params


class Command(TyperCommand):
    """A command whose help shows metavars and choices rather than Python types."""

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _plain(super().get_params(ctx))


def usage_error(exc: ClickException) -> None:
    """``exc`` as one line on stderr, with where to find the help."""
    message = exc.format_message().replace("Value error, ", "").rstrip(".")
    ctx = getattr(exc, "ctx", None)
    where = f"; see '{ctx.command_path} -h'" if isinstance(ctx, Context) else ""
    Console(file=sys.stderr, soft_wrap=True, highlight=False).print(
        f"error: {message}{where}", markup=False
    )


class Group(TyperGroup):
    """The ``workloadbuilder`` group: plain help, and usage errors on one line."""

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _plain(super().get_params(ctx))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except ClickException as exc:
            usage_error(exc)
            sys.exit(exc.exit_code)
        except typer.Abort:
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)
