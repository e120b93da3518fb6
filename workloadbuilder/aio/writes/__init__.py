"""Writes: putting objects on the cluster and keeping them right.

``preflight`` (served APIs, permissions), ``apply`` (server-side apply, in order), ``resize``
(a gang's ``minCount``), ``delete`` (in order, members first), ``reconcile`` and
``reconcile_job`` (decide, then create, resize or report), with ``drift`` (immutable changes),
``ownership`` (who controls an object) and ``events`` (the Events a reconcile records). It
imports reading (``aio.cache``), RBAC, the wire and ``aio.errors``; never the observation
room nor the controllers.
"""
