"""What the commands read and write: spec files (``-`` is standard input), the consoles,
one-line errors, tables without padding, objects as YAML or JSON."""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TextIO

import typer
from rich.console import Console
from rich.table import Table

from ..api.sdk import yaml_stream
from ..execution import Release
from ..spec import LoadedSpec, SpecError, load_spec

__all__ = [
    "INVALID",
    "STDIN",
    "USAGE",
    "Format",
    "Output",
    "emit",
    "err",
    "fail",
    "load",
    "out",
    "print_errors",
    "print_table",
    "read_bytes",
    "release",
    "spec_path",
]

INVALID = 1
USAGE = 2
STDIN = "-"


Format = enum.StrEnum("Format", ["yaml", "json"])
"""Formats of Kubernetes objects."""
Output = enum.StrEnum("Output", ["table", "yaml", "json"])
"""Formats of a report."""


def _tolerant(stream: TextIO) -> TextIO:
    """``stream``, writing what its encoding cannot (a lone surrogate) as a backslash escape."""
    reconfigure = getattr(stream, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(errors="backslashreplace")
    return stream


def out() -> Console:
    """Standard output; not cropped to 80 columns when piped."""
    stdout = _tolerant(sys.stdout)
    return Console(file=stdout, highlight=False, width=None if stdout.isatty() else 1000)


def _wide() -> Console:
    """Standard output for tables: never cropped nor folded, on a terminal too (as kubectl)."""
    return Console(file=_tolerant(sys.stdout), highlight=False, width=100_000)


def err() -> Console:
    return Console(file=_tolerant(sys.stderr), soft_wrap=True, highlight=False)


def fail(message: str, code: int = INVALID) -> NoReturn:
    """Print a one-line error and exit with ``code``."""
    err().print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def read_bytes(path: Path) -> bytes:
    """The file's bytes; ``-`` is standard input."""
    try:
        return sys.stdin.buffer.read() if str(path) == STDIN else path.read_bytes()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}", USAGE)


@contextmanager
def _as_file(path: Path) -> Iterator[Path]:
    """``path``, or standard input's bytes in a temporary file when it is ``-``."""
    if str(path) != STDIN:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="workloadbuilder-") as tmp:
        copy = Path(tmp) / "stdin"
        copy.write_bytes(read_bytes(path))
        yield copy


def spec_path(spec: Path | None, filename: Path | None) -> Path:
    """The one spec file of a command: ``SPEC`` or ``-f FILE``."""
    if (spec is None) == (filename is None):
        fail("give one spec file: -f FILE (or - for standard input), or SPEC", USAGE)
    return spec or filename  # type: ignore[return-value]


def load(path: Path) -> LoadedSpec:
    source = "<stdin>" if str(path) == STDIN else str(path)
    with _as_file(path) as readable:
        try:
            loaded = load_spec(readable)
        except OSError as exc:
            fail(f"cannot read {path}: {exc.strerror or exc}", USAGE)
        except SpecError as exc:
            exc.source = source
            print_errors(exc)
            raise typer.Exit(INVALID) from None
    return dataclasses.replace(loaded, source=source)


def print_errors(exc: SpecError) -> None:
    console = err()
    for line in exc.located():
        console.print(line, markup=False)


def print_table(table: Table) -> None:
    """A table on standard output, without the padding after the last column."""
    console = _wide()
    with console.capture() as captured:
        console.print(table)
    text = "".join(line.rstrip() + "\n" for line in captured.get().splitlines())
    stdout = _tolerant(sys.stdout)
    stdout.write(text)
    stdout.flush()


def release(spec: LoadedSpec) -> Release:
    """The spec's Workload and runtime objects; its errors printed and exit 1 if invalid."""
    try:
        return spec.release()
    except SpecError as exc:
        print_errors(exc)
        raise typer.Exit(INVALID) from None


def emit(documents: Iterable[Any], output: Format | Output) -> None:
    docs = list(documents)
    if output == "json":
        body = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
    else:
        sys.stdout.write(yaml_stream(docs))
