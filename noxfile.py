"""Developer sessions: ``nox -s tests``, ``nox -s typecheck``, ``nox -s lint``, ``nox -s docs``."""

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
    session.run("ruff", "check", "workloadbuilder", "tests", "examples", "noxfile.py")
    session.run("ruff", "format", "--check", "workloadbuilder", "tests", "examples", "noxfile.py")
    session.run("lint-imports")


@nox.session
def docs(session: nox.Session) -> None:
    session.install("-e", ".[docs]")
    session.env["NO_MKDOCS_2_WARNING"] = "1"
    session.run("mkdocs", "build", "--strict", "--site-dir", "site", *session.posargs)
