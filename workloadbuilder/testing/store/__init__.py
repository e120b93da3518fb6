"""Object storage: objects by resource and name, resource versions, watch fan-out, selectors."""
