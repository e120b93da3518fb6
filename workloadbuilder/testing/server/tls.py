"""A self-signed serving certificate for ``127.0.0.1``, made when an RBAC server starts.

client-go (kubectl, every Go client) sends a kubeconfig's credentials only over TLS, so the
server an RBAC kubeconfig names is an ``https`` listener with this certificate, and the
kubeconfig carries it as ``certificate-authority-data``.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
from collections.abc import Iterable
from pathlib import Path


def make_certificate(directory: Path, names: Iterable[str] = ()) -> tuple[Path, Path]:
    """Write ``serving.crt`` and ``serving.key`` (mode 0600) into ``directory``; their paths.
    The certificate names ``127.0.0.1``, ``localhost`` and the DNS ``names``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "workloadbuilder-apiserver")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.DNSName("localhost"),
                    *(x509.DNSName(n) for n in names),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "serving.crt", directory / "serving.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    return cert_path, key_path


def server_context(cert_path: Path, key_path: Path) -> ssl.SSLContext:
    """The listener's TLS context."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context
