"""Developer sessions: ``nox -s tests``, ``typecheck``, ``lint``, ``bench`` and ``docs``."""

import nox

nox.options.sessions = ["tests", "typecheck", "lint"]


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    session.run("pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    session.run("mypy", "--strict", "workloadbuilder")


@nox.session
def lint(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    paths = ("workloadbuilder", "tests", "examples", "benchmarks", "noxfile.py")
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)
    session.run("lint-imports")


@nox.session
def bench(session: nox.Session) -> None:
    """Every benchmark's table (``benchmarks/README.md``); ``-- --smoke`` for a quick check."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "benchmarks", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """The docs site, built with ``--strict`` (a warning fails it)."""
    session.install("-e", ".[docs]")
    session.env["NO_MKDOCS_2_WARNING"] = "1"
    session.run("mkdocs", "build", "--strict", "--site-dir", "site", *session.posargs)
