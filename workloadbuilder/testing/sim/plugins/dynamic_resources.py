"""DynamicResources (PostFilter): runs before DefaultPreemption, freeing an idle ResourceClaim
before evicting a pod. The simulator models no claims, so it always has none to deallocate."""

from __future__ import annotations

from typing import Final

NAME: Final = "DynamicResources"
POST_FILTER: Final = "no new claims to deallocate"
