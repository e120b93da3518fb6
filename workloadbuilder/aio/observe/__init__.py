"""Observation: what the scheduler did with the objects, read without changing anything.

``read`` (``read_object``, ``list_objects``), ``diagnose`` (a group's verdict), ``wait``
(``wait_scheduled``) and ``audit`` (a namespace's findings). It imports reading
(``aio.cache``), the wire and ``aio.errors``; never the writes room nor the controllers.
"""
