"""Suite-wide settings: under CI (``CI`` set), hypothesis draws the same examples every run."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
