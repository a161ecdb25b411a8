"""The tests talk to this machine only. Installed for the whole pytest process (tests/conftest.py), this
guard refuses any socket connection, or datagram, to an address outside 127.0.0.0/8 and ::1 (a Unix
socket is fine): the call fails with OutsideConnection before a packet leaves, and the test fails
afterwards, even if the code under test swallowed the error (a push sender does). So a broken check
of a push endpoint fails a test instead of reaching another machine.

Names are resolved only for this machine (localhost, its own host name, addresses written as such);
any other name is "not found", as on a machine without a network, unless the test's resolver maps it
(`resolver.map("push.example", "10.0.0.5")`): a test can make a public-looking name lead anywhere
without a query leaving the machine. Processes a test starts (daphne) are not guarded."""

from __future__ import annotations

import ipaddress
import socket
import threading

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_sendto = socket.socket.sendto
_real_getaddrinfo = socket.getaddrinfo

_lock = threading.Lock()
_outside: list[str] = []
_installed = False


class OutsideConnection(PermissionError):
    """A test tried to reach beyond this machine."""


class Resolver:
    """The test's own answers to name lookups (cleared after each test)."""

    def __init__(self) -> None:
        self.names: dict[str, list[list[str]]] = {}
        self.lookups: list[str] = []

    def map(self, name: str, *addresses: str) -> None:
        """`name` resolves to these addresses (in this order)."""
        self.map_in_turn(name, list(addresses))

    def map_in_turn(self, name: str, *answers: list[str]) -> None:
        """Each lookup of `name` gets the next answer, the last one for ever after (a name whose
        owner changes its addresses between two lookups: DNS rebinding)."""
        self.names[name.lower().rstrip(".")] = [list(a) for a in answers]

    def answer(self, name: str) -> list[str]:
        answers = self.names[name]
        return answers.pop(0) if len(answers) > 1 else answers[0]

    def forget(self) -> None:
        self.names.clear()
        self.lookups.clear()


resolver = Resolver()


def _loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _local_name(name: str) -> bool:
    name = name.lower().rstrip(".")
    return name in ("localhost", socket.gethostname().lower()) or name.endswith(".localhost")


def _check(sock: socket.socket, address) -> None:
    if sock.family == socket.AF_UNIX:
        return
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) and address:
        host = address[0].decode() if isinstance(address[0], bytes) else str(address[0])
        if _loopback(host):
            return
        if not _is_address(host):  # a name: connect() would resolve it; every address must be here
            try:
                infos = getaddrinfo(host, address[1], sock.family, socket.SOCK_STREAM)
            except socket.gaierror:
                infos = []
            if infos and all(_loopback(info[4][0]) for info in infos):
                return
    message = (
        f"a test connected to {address!r} (family {sock.family!r}): only 127.0.0.0/8 and ::1 are allowed"
    )
    with _lock:
        _outside.append(message)
    raise OutsideConnection(message)


def connect(self, address):
    _check(self, address)
    return _real_connect(self, address)


def connect_ex(self, address):
    _check(self, address)
    return _real_connect_ex(self, address)


def sendto(self, data, *args):
    if args:
        _check(self, args[-1])
    return _real_sendto(self, data, *args)


def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
    name = host.decode() if isinstance(host, bytes) else host
    if name is not None:
        key = name.lower().rstrip(".")
        with _lock:
            resolver.lookups.append(key)
            addresses = resolver.answer(key) if key in resolver.names else None
        if addresses is not None:
            return _answers(addresses, port, family, type, proto)
        if not (_is_address(name) or _local_name(name)):
            raise socket.gaierror(
                socket.EAI_NONAME, f"{name}: the tests resolve no names beyond this machine"
            )
    return _real_getaddrinfo(host, port, family, type, proto, flags)


def _answers(addresses: list[str], port, family, type, proto) -> list:
    number = int(port) if isinstance(port, int | str) and str(port).isdigit() else 0
    answers = []
    for address in addresses:
        version = ipaddress.ip_address(address).version
        af = socket.AF_INET if version == 4 else socket.AF_INET6
        if family not in (0, socket.AF_UNSPEC, af):
            continue
        sockaddr = (address, number) if version == 4 else (address, number, 0, 0)
        answers.append((af, type or socket.SOCK_STREAM, proto or socket.IPPROTO_TCP, "", sockaddr))
    if not answers:
        raise socket.gaierror(socket.EAI_NONAME, "no address of that family")
    return answers


def install() -> None:
    global _installed
    if _installed:
        return
    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.socket.sendto = sendto
    socket.getaddrinfo = getaddrinfo
    _installed = True


def start_test() -> None:
    resolver.forget()
    with _lock:
        _outside.clear()


def end_test() -> list[str]:
    """The connections beyond this machine the test tried (the guard refused them)."""
    resolver.forget()
    with _lock:
        outside = list(_outside)
        _outside.clear()
    return outside
