"""What a device's push endpoint may be: an `https` URL on port 443 whose host is a public name or a
public address, nothing else. The clock POSTs to it, from inside the network, so anything else would let
a person make the server talk to itself or to its neighbours (SSRF).

`check` judges the URL as written (when it is stored, and again before each push); `addresses` resolves
its host when a push is sent and refuses it unless every address is public (DNS can change in between),
and the push then connects to one of those checked addresses (see `transport`). Only
PENTA_PUSH_ALLOW_LOOPBACK (never on in production) relaxes this: it lets a test's or a developer's push
service on this machine (127.0.0.0/8, ::1, `localhost`, on any port, http too) through, and nothing more.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

MAX_LENGTH = 1000  # PushSubscription.endpoint's column
RESOLVE_AT_STORE_SECONDS = 1.0
# Names that only mean something inside a network (RFC 6761, RFC 6762, RFC 8375, and those in common use
# there), refused with their subdomains: a push service is never there.
INTERNAL_SUFFIXES = (
    "localhost",
    "localdomain",
    "local",
    "internal",
    "intranet",
    "private",
    "corp",
    "lan",
    "home",
    "arpa",  # home.arpa, and the reverse zones' names of addresses
    "svc",  # a cluster's services (kubernetes.default.svc)
)
# Only what a URL may hold unencoded (RFC 3986's unreserved and reserved characters, and %): no space,
# control character, backslash or character outside ASCII (which IDNA would map to other characters).
URL_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?\[\]@!$&'()*+,;=%]*")
LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
# A host whose last label is a number is read as an IPv4 address by browsers (WHATWG URL) and by
# inet_aton, whatever its form: 2130706433, 127.1, 0x7f.1, 0177.0.0.1 are all 127.0.0.1.
NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
DOTTED_QUAD = re.compile(rf"{OCTET}(?:\.{OCTET}){{3}}")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052: an IPv4 address in its last 32 bits

_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="push-dns")


class EndpointRefused(Exception):
    """The endpoint may not be pushed to; `kind` says why (for the log), `message` tells the person."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind

    @property
    def message(self) -> str:
        messages = {
            "too_long": _("This device's push address is too long."),
            "characters": _("This device's push address contains characters a push address never has."),
            "scheme": _("This device's push address must start with https://."),
            "credentials": _("This device's push address may not contain a user name or password."),
            "port": _("This device's push address must use the standard port of https (443)."),
            "numeric": _(
                "This device's push address writes its host as a number in an unusual form, "
                "which is not allowed."
            ),
            "internal_name": _(
                "This device's push address names a host of a private network, which is not allowed."
            ),
            "private_address": _(
                "This device's push address leads to a private, local or reserved network address, "
                "which is not allowed."
            ),
        }
        return messages.get(self.kind, _("This device's push address is not valid."))


@dataclass(frozen=True)
class Endpoint:
    url: str
    scheme: str
    host: str  # lower case, without a trailing dot; an IPv6 address without its brackets
    port: int
    target: str  # the request's path and query
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None  # when the host is written as one

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        """The push service's origin, the audience of the VAPID token (RFC 8292 2)."""
        return f"{self.scheme}://{self.host_header}"


def loopback_allowed() -> bool:
    return bool(settings.PENTA_PUSH_ALLOW_LOOPBACK)


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """An address anyone on the internet reaches: not loopback, private, shared (CGNAT), link-local,
    unique-local, site-local, multicast, reserved, unspecified or documentation; an IPv6 address that
    carries an IPv4 one (mapped, 6to4, Teredo) is refused, a NAT64 one is judged by the IPv4 inside."""
    if address.version == 6:
        if address in NAT64:
            return is_public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        if address.ipv4_mapped or address.sixtofour or address.teredo or address.is_site_local:
            return False
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def is_allowed(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Public, or loopback (127.0.0.0/8, ::1, not a mapped one) where the setting allows it."""
    mapped = address.version == 6 and address.ipv4_mapped is not None
    return is_public(address) or (loopback_allowed() and address.is_loopback and not mapped)


def _is_loopback_host(host: str, address) -> bool:
    return host == "localhost" or (address is not None and address.is_loopback)


def check(url: str) -> Endpoint:
    """The endpoint as written, judged without resolving its name; raises EndpointRefused."""
    if not isinstance(url, str) or not url:
        raise EndpointRefused("malformed")
    if len(url) > MAX_LENGTH:
        raise EndpointRefused("too_long")
    if not URL_CHARACTERS.fullmatch(url):
        raise EndpointRefused("characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EndpointRefused("malformed") from None
    if "@" in parts.netloc:
        raise EndpointRefused("credentials")
    host = (parts.hostname or "").rstrip(".")
    if not host or parts.fragment or "%" in host:
        raise EndpointRefused("malformed")
    address = _host_address(host)
    if address is None:
        _check_name(host)
    elif not is_allowed(address):
        raise EndpointRefused("private_address")
    local = loopback_allowed() and _is_loopback_host(host, address)
    if parts.scheme != "https" and not (local and parts.scheme == "http"):
        raise EndpointRefused("scheme")
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    # Every push service listens on https's own port; the tests' servers have ports of their own.
    if port != 443 and not loopback_allowed():
        raise EndpointRefused("port")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Endpoint(url=url, scheme=parts.scheme, host=host, port=port, target=target, address=address)


def _host_address(host: str):
    """The address the host is written as, or None for a name; EndpointRefused for a number in any
    form but the usual dotted one."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise EndpointRefused("malformed") from None
    if not NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]):
        return None
    if not DOTTED_QUAD.fullmatch(host):
        raise EndpointRefused("numeric")
    return ipaddress.IPv4Address(host)


def _check_name(host: str) -> None:
    labels = host.split(".")
    if len(host) > 253 or not all(LABEL.fullmatch(label) for label in labels):
        raise EndpointRefused("malformed")
    if host == "localhost" and loopback_allowed():
        return
    # A name without a dot is looked up in the server's own search domains.
    if len(labels) < 2 or any(host == s or host.endswith(f".{s}") for s in INTERNAL_SUFFIXES):
        raise EndpointRefused("internal_name")


def check_to_store(url: str) -> Endpoint:
    """`check`, and a name that resolves now (within RESOLVE_AT_STORE_SECONDS) must resolve to allowed
    addresses only. A name that does not resolve, or not in time, is kept: each push checks again."""
    endpoint = check(url)
    if endpoint.address is None and not (endpoint.host == "localhost" and loopback_allowed()):
        # Not found, or not in time (a TimeoutError is an OSError): kept.
        with contextlib.suppress(OSError, UnicodeError):
            addresses(endpoint, time.monotonic() + RESOLVE_AT_STORE_SECONDS)
    return endpoint


def addresses(endpoint: Endpoint, deadline: float) -> list[str]:
    """The addresses to connect to for a push (all checked; in the resolver's order), resolved by
    `deadline` (time.monotonic()); EndpointRefused if any of them is not allowed, TimeoutError if the
    resolver has not answered by then, OSError (socket.gaierror) if the name does not resolve."""
    if endpoint.address is not None:
        return [str(endpoint.address)]
    found = _resolver.submit(
        socket.getaddrinfo, endpoint.host, endpoint.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    try:
        infos = found.result(timeout=max(0.0, deadline - time.monotonic()))
    except TimeoutError:
        found.cancel()
        raise TimeoutError(f"no address for {endpoint.host} in time") from None
    result = []
    for family, _type, _proto, _name, sockaddr in infos:
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        try:
            address = ipaddress.ip_address(sockaddr[0])
        except ValueError:  # a scoped IPv6 address ("fe80::1%eth0"): link-local, never public
            raise EndpointRefused("private_address") from None
        if not is_allowed(address):
            raise EndpointRefused("private_address")
        if str(address) not in result:
            result.append(str(address))
    if not result:
        raise socket.gaierror(socket.EAI_NONAME, f"no address for {endpoint.host}")
    return result
