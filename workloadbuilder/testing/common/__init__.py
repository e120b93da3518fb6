"""Shared by every room: the served resource types (``resources``) and ``Status`` errors."""
