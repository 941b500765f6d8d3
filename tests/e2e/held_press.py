"""A page's press held back in its WebSocket (Playwright's ``route_web_socket``), to deliver
to the app server later: a race between a press and a run, made to happen every time."""

from __future__ import annotations


class HeldPress:
    """Holds back the page's first message to the server that presses a label button (its
    widget key is in the message), forwarding every other message, until :meth:`release`."""

    def __init__(self) -> None:
        self.armed = False
        self.message: bytes | str | None = None
        self._server = None

    def route(self, ws) -> None:
        """The page's WebSocket route: connected to the app server, page messages filtered."""
        self._server = ws.connect_to_server()
        ws.on_message(self._from_page)

    def _from_page(self, message) -> None:
        press = isinstance(message, bytes) and b"label_0_" in message
        if self.armed and self.message is None and press:
            self.message = message
            return
        self._server.send(message)

    def release(self) -> None:
        """Deliver the held press to the app server."""
        self._server.send(self.message)
