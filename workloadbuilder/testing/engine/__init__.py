"""The API server's verbs without HTTP: create, update, patch, delete, list, garbage collection."""
