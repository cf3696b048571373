"""TLS for the programs that serve it (netexec with --tls-cert-file, porter's SERVE_TLS_PORT_N).

fakecri has no image files to read a program's own certificate from, so every TLS listener
presents this one: a self-signed certificate for localhost, 127.0.0.1 and ::1, made for fakecri
with openssl (valid until 2126). Clients that do not verify (the kubelet's https probes and
hooks, `curl -k`) talk to it; clients that verify refuse it, as they would a self-signed one.
"""
from __future__ import annotations

import os
import ssl
import tempfile
from functools import cache

CERTIFICATE = """-----BEGIN CERTIFICATE-----
MIIDOjCCAiKgAwIBAgIUVIvU2qmbcCR/w8UfcbIbfWS53ZkwDQYJKoZIhvcNAQEL
BQAwFDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNjEwNDkxMloYDzIxMjYx
MTAyMTA0OTEyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwggEiMA0GCSqGSIb3DQEB
AQUAA4IBDwAwggEKAoIBAQDCDPkfE+1kTZMdcCBaZYsc7NObxpWGkNXkK3dwfQGL
RrpVYJnqQnXWB+ZpewhJETtlfdpBIhDyULBHz+9bqLbR/PKF+8mJ4c2faG4Yr1Tb
qowEAQ6udMeKv+N7sVFnCBBgC7+6ySXktAoGInedDtIOqhurUVnzTIrh2De8ZdWL
8i3hGBKb+fBBozYl7os6kF4fiGCwlPGjrLWbIrv40tzKNpZ6lLcEa8E8zJKSJR/Y
RCqx2lXDQHJbSecaXQYThKle+pOPVIDNgT1aaYyUzNTsoUc7XkVkxEcxNlXsOxNI
gijQKNk3LOnW2iKrLCMCs1QLLA28vlxeYAzqS31pu4JxAgMBAAGjgYEwfzAdBgNV
HQ4EFgQUfN4KIx725w1i7AoexxEQd3e0CngwHwYDVR0jBBgwFoAUfN4KIx725w1i
7AoexxEQd3e0CngwDwYDVR0TAQH/BAUwAwEB/zAsBgNVHREEJTAjgglsb2NhbGhv
c3SHBH8AAAGHEAAAAAAAAAAAAAAAAAAAAAEwDQYJKoZIhvcNAQELBQADggEBAFSj
pGkkepYlyQLzSvSHUtP9pvTn8EZCWN0EdUYWmExeSlBYwaAdxd6YMur13jUezxNA
v9tgOO9yIkvM1ozGJ3ubaSrYe+A58zwSKP/G92ThSq4kX7iyWfOun5gcybxH7QIz
WnjOBz1HctDnZVbLlI90LZhU9vcRu2PAk8Ves0nbcC/WkURMM8HCKNB8bIHP5n40
qu7hMe5PwJ1XwwsEJdKP4SiaM3GsuYP+JkBHCdDFfAvhq0d+8Rv7b71o6oirsvCW
LJNLg8g9sDNFNwaO6l9Bag5R+QKQC4XUwzn08zppeHJi4D3Pves6fu8ITJsKetgM
OxI9MFmHMtivjg7zsN0=
-----END CERTIFICATE-----
"""
PRIVATE_KEY = """-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDCDPkfE+1kTZMd
cCBaZYsc7NObxpWGkNXkK3dwfQGLRrpVYJnqQnXWB+ZpewhJETtlfdpBIhDyULBH
z+9bqLbR/PKF+8mJ4c2faG4Yr1TbqowEAQ6udMeKv+N7sVFnCBBgC7+6ySXktAoG
InedDtIOqhurUVnzTIrh2De8ZdWL8i3hGBKb+fBBozYl7os6kF4fiGCwlPGjrLWb
Irv40tzKNpZ6lLcEa8E8zJKSJR/YRCqx2lXDQHJbSecaXQYThKle+pOPVIDNgT1a
aYyUzNTsoUc7XkVkxEcxNlXsOxNIgijQKNk3LOnW2iKrLCMCs1QLLA28vlxeYAzq
S31pu4JxAgMBAAECggEAEz48GiPcv7ydoSa0XqKBOB4YIfOAcna8b0MMNiB/XbNm
2P6aZMuwacggxkcIHE7UKA1h7mGVcqIjyQtKvjkt4AcIedbtNnoo7OzrNhF1Bc+U
0PTV4uD7xLugsGx2GRSIoy2nFrvJwTNFZzRVzkJg/ElMMyH/HIxznU/Wvx0OHzF5
ZaVhIqPxmE8/+9ulzWXe6/L3V9C0Xm86IwGr+4HgdtRiGd/NqeXiFo2vXT5ZlTol
14VGqGCFa7L2XeXaXp+JG8o8WtEqcE0n4+w4BBiQD/RQewHkHUpVP0aS9hkXNHzC
+8EIJKxh3aPDzwPzDfH2ziAZBz1Pxs3pcUxf6ljJXQKBgQD8S+O8FVJAYnePGH4w
qVHZj0wRyJR9KxOGBDiud+3TfeQpHx67is/1U9E9Abm9cuGtp9tyPq80Agw5/Kub
gk9zMklmng4xmqD42C9E84elgBa1Kh/X3WEekselWcJB8X8qzGvm09TQ+UbiJ1cj
f2V8p7dy8p6zikhAf/onvdve4wKBgQDE5jNSi/g7TgWhBX8ZadO3lNlEwIfLSFxY
HQH2nEbYMISnLDIhYXDITu8MLp+poYt9zO963tf/RoPoPzSx4o2nfR1CA7Bg3eMO
ilZ8ZqxsBp9uNYwkDt+mw2NL5wqrYkdbHST7TU3Vldv9KmKk6yMcwIAFmpDUCRXv
+g+9omRlmwKBgQDVMvgmV0ojWFI6HPN+AYdGNt6MZJh+UWl1JZoUbQoPX2HwEfkx
eDMV2BeH2y5vVmY5DhDWMPxzEYvtcIQ/rFWhPgxi6AuMhWOkBWOke7rT8zK9MvSn
wM6yPEzzgK80dHQG4aoI7Fb5pLzunVn4iE5lkYDnZPkRNTirMLpe3QSxCwKBgCCr
eXSG2OcuKOzwtogG8SQSxIIN1/o4xWmxVnQOtgqE8l2yjZbQTiBOSIei7Mb+kOCM
smeWtgwbLSPJ6Ppi9tIFhmc/qXJJHrV46qS1fIJoDugAZoJNHXrUDJO5gCGzqtdJ
XKt9xh5cQSYedEOc6DSLFDLZ1JH59/Pbb+UtHq9lAoGBAJwqaWeFv3hsM2Bx9Yih
Z0ECqXyvfogIoT5CpoDG4/kV+a2laagltmLsfvaGWsvRhzcAJWLrJNQZAYdvd3Gd
6sCgkWfg+qXNjrlW7E6T4UruX1/ZbQSZU4aeNe51pIiUSWGm54cG6NtQvjrq/tlp
i9eWU3gzJPMwbfsCPpu5M2Jq
-----END PRIVATE KEY-----
"""


@cache
def server_context() -> ssl.SSLContext:
    """The server side (the key is written to a private temporary file for the ssl module to load)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory(prefix="fakecri-tls-") as d:
        cert, key = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
        for path, text in ((cert, CERTIFICATE), (key, PRIVATE_KEY)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(text)
        ctx.load_cert_chain(cert, key)
    return ctx


@cache
def client_context() -> ssl.SSLContext:
    """What a client in a container that does not verify uses (curl -k, wget --no-check-certificate)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx
