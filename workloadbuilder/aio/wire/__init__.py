"""The wire: how a request reaches the API server and how its answer is read.

``transport`` (one request, its retries, its bounds), ``retry`` (what is retryable and how
long to wait: the transport's policy and the informers' reflector backoff), ``answers`` (a
Status or an object out of a reply), ``shapes`` (the JSON types a reply's fields must have),
``watch`` (one watch stream), ``resources`` (which kind lives at which path) and ``queries``
(GET and LIST). It imports only ``aio.errors`` and ``aio.access`` below it, and the core's
models.
"""
