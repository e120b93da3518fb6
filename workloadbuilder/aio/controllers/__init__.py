"""Controllers: running reconcilers at scale.

``workqueue`` (client-go's work queue), ``ratelimit`` (its rate limiters), ``controller``
(``Controller``: a kind's objects reconciled by workers, fed by the cache's watch) and
``leader`` (``LeaderElection`` on a Lease). It imports reading (``aio.cache``), the wire and
``aio.errors``; never the verbs' rooms.
"""
