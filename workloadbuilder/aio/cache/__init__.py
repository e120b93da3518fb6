"""Reading: the shared informer cache and every read the verbs make, live or cached.

``reader`` (``Reader``, the one read protocol: the live API's ``LiveReader`` and ``Cache``
both are one; ``Reads``, what a verb reads through one), ``cache`` (``Cache``: informers,
handlers, indexes; its reads check freshness and expectations once per read), ``informer``
(list then watch, one kind, with the reflector's backoff), ``indexer`` (the store, and each
built-in index defined once in ``CacheIndex``), ``expectations`` (writes the cache has not
seen yet), ``snapshot`` (one namespace's scheduling objects as one view) and ``groups`` /
``members`` (a group's tree and member pods, which both the writes and the observation verbs
read). It imports the wire and ``aio.errors`` below it; nothing outside it reaches into an
informer.
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
