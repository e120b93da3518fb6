"""Controllers: running reconcilers at scale.

``workqueue`` (client-go's work queue), ``ratelimit`` (its rate limiters), ``controller``
(``Controller``: a kind's objects reconciled by workers, fed by the cache's watch),
``leader`` (``LeaderElection`` on a Lease) and ``manager`` (``Manager``: all of them on one
cache, with ``probes``, ``metrics_server`` and the ``servers`` they listen on). It imports
reading (``aio.cache``), the wire, ``aio.errors`` and ``aio.metrics``; never the verbs' rooms.
"""
