"""Reading: the shared informer cache and every read the verbs make, live or cached.

``cache`` (``Cache``: informers, handlers, indexes), ``informer`` (list then watch, one kind),
``indexer`` (the indexes), ``expectations`` (writes the cache has not seen yet), ``reader``
(one read path, through the cache or the live API), ``snapshot`` (one namespace's scheduling
objects as one view) and ``groups`` / ``members`` (a group's tree and member pods, which both
the writes and the observation verbs read). It imports the wire and ``aio.errors`` below it.
"""

from .cache import (
    AddHandler,
    Cache,
    CacheIndex,
    CacheKind,
    CacheSyncError,
    CustomResource,
    DeleteHandler,
    Handler,
    IndexFunc,
    Transform,
    UpdateHandler,
)

__all__ = [
    "AddHandler",
    "Cache",
    "CacheIndex",
    "CacheKind",
    "CacheSyncError",
    "CustomResource",
    "DeleteHandler",
    "Handler",
    "IndexFunc",
    "Transform",
    "UpdateHandler",
]
