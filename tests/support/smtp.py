"""A real SMTP server for a test (aiosmtpd on 127.0.0.1, a free port, in its own thread) that keeps the
mails it is given (or refuses an address, or is busy, on demand, or is stopped and started again on its
port), and the MAILERS that send to it: the mails go through Django's SMTP backend and smtplib as in
production, and are read back as parsed messages and as the bytes that came over the wire."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from tests.support.servers import free_port

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


@dataclass(frozen=True)
class Mail:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    raw: bytes  # as received: a mail program reads these, not Python's decoded view of them

    @property
    def text(self) -> str:
        return self.message.get_body(preferencelist=("plain",)).get_content()

    @property
    def html(self) -> str:
        return self.message.get_body(preferencelist=("html",)).get_content()

    def raw_header(self, name: str) -> str | None:
        """The header's value as sent, unfolded (RFC 5322 2.2.3), nothing decoded."""
        head = re.split(rb"\r?\n\r?\n", self.raw, maxsplit=1)[0]
        unfolded = re.sub(rb"\r?\n(?=[ \t])", b"", head).decode("ascii")
        for line in re.split(r"\r?\n", unfolded):
            field, _, value = line.partition(":")
            if field.lower() == name.lower():
                return value.strip()
        return None


class MailKeeper:
    """aiosmtpd's handler: the mails accepted, kept in the order received. `refused`: addresses it
    has no mailbox for (550, for good); `busy`: mails it answers with 451 (try later) first."""

    def __init__(self) -> None:
        self.mails: list[Mail] = []
        self.refused: set[str] = set()
        self.busy = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        if address in self.refused:
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.busy:
            self.busy -= 1
            return "451 4.3.0 Too busy, try again later"
        raw = envelope.original_content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        self.mails.append(Mail(envelope.mail_from, list(envelope.rcpt_tos), message, raw))
        return "250 Message accepted for delivery"


class SmtpServer:
    """aiosmtpd on a port of its own, kept while it is stopped (connections refused) and started again;
    `with SmtpServer() as server:` runs it for the block. `keeper` says what it refuses or is busy with."""

    def __init__(self) -> None:
        self.port = free_port()
        self.keeper = MailKeeper()
        self._controller: Controller | None = None

    @property
    def mails(self) -> list[Mail]:
        return self.keeper.mails

    def start(self) -> None:
        if self._controller is None:
            self._controller = Controller(self.keeper, hostname="127.0.0.1", port=self.port)
            self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def __enter__(self) -> SmtpServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def mailers_for(port: int) -> dict:
    """MAILERS (Django 6.1) that send to the SMTP server on this machine's `port`."""
    return {
        "default": {"BACKEND": SMTP_BACKEND, "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 5}}
    }
