"""Suite-wide settings (tests/README.md): the hypothesis profiles (``property_bound.py``): the
README's run draws at most 40 examples a property (``bounded``), under CI (``CI`` set) the same
examples every run (``ci``), with ``--hypothesis-profile thorough`` each test's own count."""

import os

from hypothesis import settings

settings.register_profile("bounded", max_examples=40)
settings.register_profile(
    "ci",
    settings.get_profile("bounded"),
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
)
settings.register_profile("thorough", max_examples=300)
settings.load_profile("ci" if os.environ.get("CI") else "bounded")
