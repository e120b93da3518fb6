"""The API server's verbs without HTTP (``verbs``), the controllers it stands in for
(``controllers``), the checks of a request (``checks``), object helpers (``objects``), body
decoding and the Go types of what it accepts."""
