"""Configuration: an ``ApiClient`` from a kubeconfig, a ServiceAccount or an exec plugin.

``loading`` (``new_client``), ``kubeconfig`` (the file's checks) and ``exec`` (credential
plugins). It imports only ``aio.errors`` below it.
"""

from .loading import EXEC_TIMEOUT, new_client

__all__ = ["EXEC_TIMEOUT", "new_client"]
