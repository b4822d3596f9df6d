"""An independent TLS client for the mocks' certificates: Python's ssl module with strict
X.509 verification (the default from Python 3.13 on), plus attempts at TLS 1.0 and 1.1.

Reads {"port", "host", "ca"} as JSON on stdin; prints what it saw as JSON.
"""
import json
import socket
import ssl
import sys
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
request = json.load(sys.stdin)
out = {}

context = ssl.create_default_context(cafile=request["ca"])
context.verify_flags |= ssl.VERIFY_X509_STRICT
try:
    with socket.create_connection(("127.0.0.1", request["port"]), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname=request["host"]) as tls:
            certificate = tls.getpeercert()
            out["strict"] = "ok"
            out["version"] = tls.version()
            out["serial"] = certificate["serialNumber"]
            out["issuer"] = dict(pair[0] for pair in certificate["issuer"])["commonName"]
except Exception as error:  # the test reports what failed
    out["strict"] = str(error)

for name, version in (("TLSv1", ssl.TLSVersion.TLSv1), ("TLSv1.1", ssl.TLSVersion.TLSv1_1)):
    legacy = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    legacy.check_hostname = False
    legacy.verify_mode = ssl.CERT_NONE
    try:
        legacy.set_ciphers("ALL:@SECLEVEL=0")
        legacy.minimum_version = version
        legacy.maximum_version = version
        with socket.create_connection(("127.0.0.1", request["port"]), timeout=5) as raw:
            with legacy.wrap_socket(raw, server_hostname=request["host"]):
                out[name] = "accepted"
    except Exception:
        out[name] = "refused"

print(json.dumps(out))
