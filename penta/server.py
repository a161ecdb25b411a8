"""The production server: daphne, with its sockets compressed (permessage-deflate, RFC 7692) and
bounded (a client cannot queue more than a few dozen messages ahead of the application).

    python -m penta.server [daphne's own arguments]

e.g. `python -m penta.server --proxy-headers -b 127.0.0.1 -p 8001 penta.asgi:application`.
It runs daphne's own command line (same arguments, same behaviour) with one difference: daphne 4.2
builds autobahn's WebSocketServerFactory in `Server.run()` without `perMessageCompressionAccept`, so it
declines every compression offer; here the factory accepts a client's permessage-deflate offer (every
browser makes one, as does the `websockets` client). A client that offers nothing gets plain frames.

A push is 2-12 KB of repetitive HTML; deflated it is about 7 times smaller (a 10.3 KB push: 1.4 KB)
for some 50 microseconds of CPU (docs/deployment.md, "Compressed answers and pushes"). Memory per socket stays
modest: every message is compressed with a fresh zlib context (no context takeover), a 4 KB window
and memLevel 5 (38 KiB while it works, against 262 KiB for zlib's defaults), and the context is let
go at the end of the message, so an idle socket keeps none. The client is asked to do the same for
the little JSON it sends (no context takeover; a 4 KB window when it lets the server choose).

daphne has no hook for any of this: it relies on daphne's and autobahn's internals (the factories
`Server.run()` assigns, autobahn's zlib contexts), which tests/test_private_names.py pins.
"""

from __future__ import annotations

import sys

# daphne.server first: it installs Twisted's asyncio reactor, which must happen before anything
# imports twisted.internet.reactor.
from daphne.server import Server  # isort: skip

from autobahn.websocket.compress import (
    PERMESSAGE_COMPRESSION_EXTENSION,
    PerMessageDeflate,
    PerMessageDeflateOffer,
    PerMessageDeflateOfferAccept,
)
from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from twisted.internet import reactor

# Server to client: the LZ77 window (2**WINDOW_BITS bytes) and zlib's memLevel (hash table and
# buffers): as small as they go before the pushes compress worse (measured on real pushes: 11 and
# 4 make them 5% larger and slower to compress, 9 and 3 two and a half times larger).
WINDOW_BITS = 12
MEM_LEVEL = 5
# Client to server (small JSON actions): the window the client is asked to use, when it allows it.
CLIENT_WINDOW_BITS = 12
# How often a socket whose reading is paused looks whether the application has caught up.
RESUME_CHECK_SECONDS = 0.02


def accept_deflate(offers: list) -> PerMessageDeflateOfferAccept | None:
    """autobahn's perMessageCompressionAccept: the first permessage-deflate offer, accepted with the
    settings above (never a larger window than the client asked for), else None (no compression)."""
    for offer in offers:
        if isinstance(offer, PerMessageDeflateOffer):
            window = WINDOW_BITS
            if offer.request_max_window_bits:  # the client caps the server's window
                window = min(window, offer.request_max_window_bits)
            return PerMessageDeflateOfferAccept(
                offer,
                request_no_context_takeover=offer.accept_no_context_takeover,
                request_max_window_bits=CLIENT_WINDOW_BITS if offer.accept_max_window_bits else 0,
                no_context_takeover=True,
                window_bits=window,
                mem_level=MEM_LEVEL,
            )
    return None


class LeanPerMessageDeflate(PerMessageDeflate):
    """autobahn's permessage-deflate, which without context takeover still keeps the last message's
    zlib context until the next message replaces it: here it is let go at the end of the message."""

    def end_compress_message(self):
        data = super().end_compress_message()
        if self.server_no_context_takeover if self._is_server else self.client_no_context_takeover:
            self._compressor = None
        return data

    def end_decompress_message(self):
        super().end_decompress_message()
        if self.client_no_context_takeover if self._is_server else self.server_no_context_takeover:
            self._decompressor = None


class BoundedWebSocketProtocol(WebSocketProtocol):
    """daphne's WebSocket protocol, which reads a client's frames as fast as they arrive and queues every
    one for the application: a client sending at wire speed kept the event loop parsing and the
    process stalled for everybody (the rate limits act only once a message reaches the consumer).
    Here reading stops while `PENTA_SOCKET_QUEUE` messages wait for the application, so TCP holds the
    sender back, and frames past twice as many (a burst already in the buffer) are dropped unread."""

    reading_paused = False

    def onMessage(self, payload, isBinary):
        queue = getattr(self, "application_queue", None)
        limit = settings.PENTA_SOCKET_QUEUE
        if queue is not None and queue.qsize() >= 2 * limit:
            return
        super().onMessage(payload, isBinary)
        if queue is not None and queue.qsize() >= limit and not self.reading_paused:
            self.reading_paused = True
            self.transport.pauseProducing()
            reactor.callLater(RESUME_CHECK_SECONDS, self._resume_when_drained)

    def _resume_when_drained(self):
        if self.state == self.STATE_CLOSED:
            return
        if self.application_queue.qsize() <= settings.PENTA_SOCKET_QUEUE // 2:
            self.reading_paused = False
            self.transport.resumeProducing()
        else:
            reactor.callLater(RESUME_CHECK_SECONDS, self._resume_when_drained)


class FormUnparsedRequest(WebRequest):
    """daphne's HTTP request without Twisted's reading of a form's body into `request.args`, which
    daphne never looks at (it hands the raw body to Django, which parses it). Twisted reads the
    Content-Type through the e-mail package's header parser first: 5% of a web process's CPU on solo
    actions (py-spy, `bench/solo_game.py`), and a multipart body is parsed whole a second time."""

    def __init__(self, *args, **kwargs):
        kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)


class LeanHTTPFactory(HTTPFactory):
    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        if protocol is not None:
            protocol.requestFactory = FormUnparsedRequest
        return protocol


class CompressingServer(Server):
    """daphne's Server whose WebSocket factory accepts permessage-deflate (and whose HTTP requests
    leave a form's body to Django: FormUnparsedRequest).

    `Server.run()` assigns `self.ws_factory` and then sets its other protocol options; this property
    sets the compression option the moment the factory is assigned, before any connection."""

    @property
    def ws_factory(self):
        return self._ws_factory

    @ws_factory.setter
    def ws_factory(self, factory) -> None:
        factory.setProtocolOptions(perMessageCompressionAccept=accept_deflate)
        factory.protocol = BoundedWebSocketProtocol
        self._ws_factory = factory

    @property
    def http_factory(self):
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory) -> None:
        # `Server.run()` builds daphne's own; the same, making requests that leave the body to Django.
        self._http_factory = factory if isinstance(factory, LeanHTTPFactory) else LeanHTTPFactory(self)

    def run(self):
        # autobahn builds the extension's processor from its registry of compression extensions
        # (which it fills the same way); in this process, the lean one.
        PERMESSAGE_COMPRESSION_EXTENSION[PerMessageDeflate.EXTENSION_NAME]["PMCE"] = LeanPerMessageDeflate
        super().run()


class CommandLine(CommandLineInterface):
    server_class = CompressingServer

    def __init__(self):
        super().__init__()
        self.parser.prog = "python -m penta.server"


def main(argv: list[str] | None = None) -> None:
    CommandLine().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
