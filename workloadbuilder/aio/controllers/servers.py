"""``HTTPServer``: an aiohttp application bound to a ``host:port`` bind address.

The manager's metrics and health probe servers run on it. Port ``0`` takes a free port;
``url`` says where the server listens once started. Stopping closes the listening socket at
once and lets requests in flight finish (at most ``shutdown_timeout`` seconds).
"""

from __future__ import annotations

from aiohttp import web

__all__ = ["HTTPServer", "split_bind_address"]


def split_bind_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port``, ``:port`` for every address) as a host and a port."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(
            f"bind address {address!r} is not host:port (e.g. 0.0.0.0:9443, 127.0.0.1:0)"
        )
    return (host.strip("[]") or "0.0.0.0"), int(port)


class HTTPServer:
    """Serve ``app`` on ``bind_address`` between ``start()`` and ``stop()``; ``what`` names the
    server in errors."""

    def __init__(
        self, app: web.Application, bind_address: str, what: str, *, shutdown_timeout: float = 30.0
    ) -> None:
        self.host, self.port = split_bind_address(bind_address)
        self.what = what
        self._app = app
        self._shutdown_timeout = shutdown_timeout
        self._runner: web.AppRunner | None = None
        self.url: str | None = None
        """``http://host:port`` once listening (``None`` before ``start()``, after ``stop()``)."""

    def __repr__(self) -> str:
        return f"HTTPServer({self.what}, url={self.url!r})"

    async def start(self) -> None:
        """Bind and serve; ``OSError`` (saying which server) when the address is taken."""
        runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=self._shutdown_timeout)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise OSError(
                exc.errno, f"the {self.what} cannot listen on {self.host}:{self.port}: {exc}"
            ) from None
        self._runner = runner
        host, port = runner.addresses[0][:2]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{port}"

    async def stop(self) -> None:
        """Stop listening; requests in flight finish first."""
        runner, self._runner = self._runner, None
        self.url = None
        if runner is not None:
            await runner.cleanup()
