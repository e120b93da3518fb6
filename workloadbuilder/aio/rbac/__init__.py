"""Permissions: the rules each verb needs and asking the server whether they are granted.

``permissions`` (``required_rules``, ``Permissions``: one table of what each verb sends) and
``reviews`` (SelfSubjectAccessReviews for ``preflight(permissions=...)``). The vocabulary of
rules (``aio.access``) sits below every room, since errors speak it too. It imports the wire,
``aio.access`` and ``aio.errors`` below it.
"""
