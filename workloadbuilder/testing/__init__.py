"""Test support: a local Kubernetes API server and a gang-scheduling simulator."""
