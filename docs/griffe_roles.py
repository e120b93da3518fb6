"""A griffe extension for the API reference: Sphinx roles in docstrings (``:func:`load_spec```,
``:class:`~workloadbuilder.testing.FakeAPIServer```) shown as code, not as raw roles."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|mod|exc|obj|const|term):`(~?)([^`]+)`")


def plain(text: str) -> str:
    """``text`` with each role as a code span; ``~`` keeps the last dotted part, as Sphinx."""

    def code(match: re.Match[str]) -> str:
        tilde, name = match.groups()
        return f"`{name.rsplit('.', 1)[-1] if tilde else name}`"

    return ROLE.sub(code, text)


class PlainRoles(griffe.Extension):
    """Rewrite the roles of every docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
