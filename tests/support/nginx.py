"""A real nginx in front of the test's daphne processes, configured by the repository's own file
(deploy/nginx/penta.conf) with only its ports and paths changed, for tests:

    proxy = Nginx.start(tmp_path, [web1.port, web2.port])
    proxy.https_url("/")          # the site, over TLS, as the shipped file serves it
    proxy.upstreams_used()        # the daphne ports nginx sent requests to (its access log)
    proxy.stop()

nginx runs as a subprocess of the test, as the current user (no `user` directive: it keeps its
workers' user), in the foreground, with its pid file, logs and temporary files in the test's directory,
on free loopback ports; its certificate is made for the test (self-signed, for 127.0.0.1). Without an
nginx binary the test is skipped with how to install one; in CI (CI=true) it fails instead."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import shutil
import socket
import subprocess
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support import ROOT
from tests.support.environment import require
from tests.support.servers import free_port, wait_until

SHIPPED = ROOT / "deploy" / "nginx" / "penta.conf"
CANDIDATES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx")
# What the test's own main configuration adds around the shipped file: which daphne port (and client
# address) each request went to, for the test to read.
MAIN = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 512; }}
http {{
    log_format upstreams '$remote_addr "$http_x_forwarded_for" $upstream_addr $status "$request"';
    access_log {dir}/access.log upstreams;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/penta.conf;
}}
"""


def nginx_binary() -> str:
    """nginx's path (it lives in /usr/sbin, often not on a user's PATH); skipped (failed in CI) if none."""
    found = shutil.which("nginx") or next((c for c in CANDIDATES if Path(c).exists()), None)
    require(found is not None, "nginx", "apt-get install nginx-light (Debian's small nginx)")
    return found


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate and its key for 127.0.0.1, valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
        # Its own authority, with the extensions a strict verifier (Python 3.13's default) asks for.
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


UPSTREAM_SERVERS = re.compile(r"(upstream penta \{\n(?:\s*#[^\n]*\n)*)(?:\s*server [^\n]*\n)+")


def site_config(
    shipped: str, *, upstream_ports: list[int], http_port: int, https_port: int, cert, key
) -> str:
    """The shipped file with the test's ports and paths, and nothing else changed."""
    servers = "".join(f"    server 127.0.0.1:{port};\n" for port in upstream_ports)
    config, count = UPSTREAM_SERVERS.subn(lambda m: m.group(1) + servers, shipped)
    assert count == 1, "the shipped file's upstream block has changed shape"
    replacements = {
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{https_port} ssl;",
        "/etc/letsencrypt/live/penta.example.com/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/penta.example.com/privkey.pem": str(key),
    }
    for old, new in replacements.items():
        assert config.count(old) == 1, f"the shipped file has no single {old!r}"
        config = config.replace(old, new)
    return config


class Nginx:
    def __init__(self, directory: Path, process: subprocess.Popen, http_port: int, https_port: int):
        self.directory = directory
        self.process = process
        self.http_port = http_port
        self.https_port = https_port

    @classmethod
    def start(cls, directory: Path, upstream_ports: list[int], *, edit=None) -> Nginx:
        """nginx with the shipped file (`edit(text)` changes it further: to show what a line is for)."""
        binary = nginx_binary()
        directory.mkdir(parents=True, exist_ok=True)
        cert, key = make_certificate(directory)
        http_port, https_port = free_port(), free_port()
        shipped = SHIPPED.read_text()
        (directory / "penta.conf").write_text(
            site_config(
                edit(shipped) if edit is not None else shipped,
                upstream_ports=upstream_ports,
                http_port=http_port,
                https_port=https_port,
                cert=cert,
                key=key,
            )
        )
        (directory / "nginx.conf").write_text(MAIN.format(dir=directory))
        argv = [binary, "-p", str(directory), "-c", str(directory / "nginx.conf")]
        argv += ["-e", str(directory / "error.log")]
        checked = subprocess.run([*argv, "-t"], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stderr
        with (directory / "nginx.out").open("wb") as out:
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        proxy = cls(directory, process, http_port, https_port)

        def listening() -> bool:
            assert process.poll() is None, f"nginx exited:\n{proxy.errors()}"
            try:
                with socket.create_connection(("127.0.0.1", https_port), timeout=0.2):
                    return True
            except OSError:
                return False

        wait_until(listening, timeout=20, what=lambda: f"nginx to listen:\n{proxy.errors()}")
        return proxy

    @property
    def certificate(self) -> Path:
        return self.directory / "cert.pem"

    @property
    def origin(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def https_url(self, path: str) -> str:
        return f"{self.origin}{path}"

    def wss_url(self, path: str) -> str:
        return f"wss://127.0.0.1:{self.https_port}{path}"

    def http_url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.http_port}{path}"

    def access_log(self) -> list[str]:
        path = self.directory / "access.log"
        return path.read_text().splitlines() if path.exists() else []

    def upstreams_used(self) -> set[int]:
        """The daphne ports nginx passed requests to."""
        used = set()
        for line in self.access_log():
            upstream = line.split('"')[2]  # after the client's X-Forwarded-For: the upstream, the status
            used |= {int(port) for port in re.findall(r"127\.0\.0\.1:(\d+)", upstream)}
        return used

    @staticmethod
    def status_of(line: str) -> int:
        return int(line.split('"')[2].split()[-1])

    def errors(self) -> str:
        path = self.directory / "error.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # nginx's fast shutdown
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
