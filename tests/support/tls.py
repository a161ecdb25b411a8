"""The tests' own https: a CA made for the tests and a server certificate it signs for this machine's
names and addresses (and the public-looking names the tests' resolver maps here), kept in var/test-tls/
(settings_test's PENTA_PUSH_CA_BUNDLE is its ca.pem, so a server process started by a test trusts it
too). Made once, by whichever test process gets there first: written in a directory of its own, then
renamed into place, so every process reads one complete pair."""

from __future__ import annotations

import datetime
import functools
import ipaddress
import os
import shutil
import ssl
import tempfile
from http.server import ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from django.conf import settings

# Names a test may give a push service of its own (the resolver of tests/support/network_guard.py maps
# them to 127.0.0.1 when the test asks it to).
NAMES = ("localhost", "push.example", "*.push.example")
ADDRESSES = ("127.0.0.1", "::1")
YEARS = 20


def directory() -> Path:
    return Path(settings.PENTA_PUSH_CA_BUNDLE).parent


def ensure() -> Path:
    """The directory with ca.pem and server.pem (the server's certificate, then its key)."""
    final = directory()
    if (final / "server.pem").exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    draft = Path(tempfile.mkdtemp(prefix=f"{final.name}.", dir=final.parent))
    try:
        _make(draft)
        os.rename(draft, final)
    except OSError:  # another process was first: its pair is the one
        if not (final / "server.pem").exists():
            raise
    finally:
        shutil.rmtree(draft, ignore_errors=True)
    return final


@functools.cache
def server_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(ensure() / "server.pem")
    return context


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _make(into: Path) -> None:
    now = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)
    until = now + datetime.timedelta(days=365 * YEARS)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_public = ca_key.public_key()
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Penta tests CA"))
        .issuer_name(_name("Penta tests CA"))
        .public_key(ca_public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(until)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_public), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName(n) for n in NAMES] + [x509.IPAddress(ipaddress.ip_address(a)) for a in ADDRESSES]
    server = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(until)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_public), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    (into / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (into / "server.pem").write_bytes(
        server.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )


class HTTPSServer(ThreadingHTTPServer):
    """http.server over the tests' TLS: the handshake happens in the request's own thread (a client
    that never finishes it holds only that thread)."""

    daemon_threads = True

    def get_request(self):
        sock, address = self.socket.accept()
        return server_context().wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def finish_request(self, request, client_address):
        try:
            request.settimeout(30)
            request.do_handshake()
        except OSError:  # the client gave up, or did not trust us: nothing to serve
            return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):  # a client that hung up is the test's business
        pass
