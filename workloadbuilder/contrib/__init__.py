"""Adapters for the platforms that run workloads on the SDK, one module each (its extra):
``workloadbuilder.contrib.polyaxon`` (``pip install 'workloadbuilder[polyaxon]'``)."""
