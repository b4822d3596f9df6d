#!/usr/bin/env python3
"""An independent push provider, for the interoperability test of the mock APNs and FCM.

It shares no code with qualify: it signs APNs provider tokens (ES256, the JWS r||s form) and
Google service-account assertions (RS256) with the `cryptography` package, speaks HTTP/1.1
over Python's ssl module, and checks the answers against Apple's and Google's documented
status codes and reasons. It also verifies an APNs provider token qualify signed.

Input (JSON on stdin): apns {key_pem, key_id, team_id, topic, production_token,
sandbox_token, qualify_jwt, public_pem}, fcm {client_email, key_pem, key_id, project, token},
ca, connect (host:port -> loopback port).
Output (JSON on stdout): each check and what it saw; exit 0 when every check passed.
"""
import base64
import json
import socket
import ssl
import sys
import time
from urllib.parse import urlencode, urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

config = json.load(sys.stdin)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def request(method, url, headers=None, body=b""):
    parts = urlsplit(url)
    port = parts.port or 443
    loopback = config["connect"][f"{parts.hostname}:{port}"]
    sock = socket.create_connection(("127.0.0.1", loopback), timeout=10)
    context = ssl.create_default_context(cafile=config["ca"])
    sock = context.wrap_socket(sock, server_hostname=parts.hostname)
    path = parts.path + ("?" + parts.query if parts.query else "")
    lines = [f"{method} {path} HTTP/1.1", f"Host: {parts.hostname}", "Connection: close",
             f"Content-Length: {len(body)}"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    sock.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    head_lines = head.decode("latin-1").split("\r\n")
    status = int(head_lines[0].split(" ")[1])
    response_headers = {}
    for line in head_lines[1:]:
        name, _, value = line.partition(":")
        response_headers[name.strip().lower()] = value.strip()
    return status, response_headers, rest


def es256_jwt(claims, key, key_id):
    header = {"alg": "ES256", "kid": key_id}
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    der = key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def rs256_jwt(claims, key, key_id):
    header = {"alg": "RS256", "typ": "JWT", "kid": key_id}
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(signature)


checks = {}
apns = config["apns"]
apns_key = serialization.load_pem_private_key(apns["key_pem"].encode(), password=None)


# One provider token, reused: Apple asks providers to refresh it no more than once every 20
# minutes (and answers 429 TooManyProviderTokenUpdates otherwise).
provider_iat = int(time.time())


def push(gateway, token, iat=None, topic=None, apns_id=None):
    jwt = es256_jwt({"iss": apns["team_id"], "iat": int(iat or provider_iat)}, apns_key,
                    apns["key_id"])
    body = json.dumps({"aps": {"alert": {"loc-key": "NEW_MESSAGE"}}}).encode()
    headers_out = {"authorization": f"bearer {jwt}", "apns-topic": topic or apns["topic"],
                   "apns-push-type": "alert", "content-type": "application/json"}
    if apns_id:
        headers_out["apns-id"] = apns_id
    status, headers, rest = request("POST", f"https://{gateway}/3/device/{token}", headers_out, body)
    reason = json.loads(rest).get("reason") if rest.strip() else None
    return status, reason, headers.get("apns-id")


status, reason, apns_id = push("api.push.apple.com", apns["production_token"])
checks["apns_delivered"] = {"ok": status == 200 and bool(apns_id), "status": status}
status, reason, _ = push("api.sandbox.push.apple.com", apns["production_token"])
checks["apns_other_environment"] = {"ok": (status, reason) == (400, "BadDeviceToken"),
                                    "status": status, "reason": reason}
status, reason, _ = push("api.sandbox.push.apple.com", apns["sandbox_token"])
checks["apns_sandbox_delivered"] = {"ok": status == 200, "status": status}
status, reason, _ = push("api.push.apple.com", apns["production_token"], iat=time.time() - 7200)
checks["apns_expired"] = {"ok": (status, reason) == (403, "ExpiredProviderToken"),
                          "status": status, "reason": reason}
status, reason, _ = push("api.push.apple.com", apns["production_token"], topic="org.example.x")
checks["apns_topic"] = {"ok": status == 400 and reason in ("TopicDisallowed", "DeviceTokenNotForTopic"),
                        "status": status, "reason": reason}
# The notification's own apns-id comes back as sent; a malformed one is refused.
mine = "123e4567-e89b-12d3-a456-4266554400a0"
status, reason, echoed = push("api.push.apple.com", apns["production_token"], apns_id=mine)
checks["apns_id_echoed"] = {"ok": status == 200 and echoed == mine, "status": status, "apns_id": echoed}
status, reason, _ = push("api.push.apple.com", apns["production_token"], apns_id="42")
checks["apns_bad_id"] = {"ok": (status, reason) == (400, "BadMessageId"), "status": status, "reason": reason}
# A second provider token minutes after the first.
status, reason, _ = push("api.push.apple.com", apns["production_token"], iat=provider_iat + 120)
checks["apns_token_updates"] = {"ok": (status, reason) == (429, "TooManyProviderTokenUpdates"),
                                "status": status, "reason": reason}

# qualify's own provider token: ES256 as JWS writes it, verifiable by anyone with the key.
public = serialization.load_pem_public_key(apns["public_pem"].encode())
head, claims, signature = apns["qualify_jwt"].split(".")
raw = b64url_decode(signature)
try:
    public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                  f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    header = json.loads(b64url_decode(head))
    checks["qualify_jwt"] = {"ok": len(raw) == 64 and header.get("alg") == "ES256"
                             and header.get("kid") == apns["key_id"]}
except Exception as error:  # noqa: BLE001 - the check reports any failure
    checks["qualify_jwt"] = {"ok": False, "error": str(error)}

fcm = config["fcm"]
fcm_key = serialization.load_pem_private_key(fcm["key_pem"].encode(), password=None)
now = int(time.time())
assertion = rs256_jwt({"iss": fcm["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                       "aud": "https://oauth2.googleapis.com/token", "iat": now, "exp": now + 3600},
                      fcm_key, fcm["key_id"])
status, _, rest = request(
    "POST", "https://oauth2.googleapis.com/token",
    {"content-type": "application/x-www-form-urlencoded"},
    urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
               "assertion": assertion}).encode())
access = json.loads(rest).get("access_token") if status == 200 else None
checks["google_oauth"] = {"ok": bool(access), "status": status}


def send(project, token):
    body = json.dumps({"message": {"token": token, "data": {"type": "new_message"}}}).encode()
    status, _, rest = request(
        "POST", f"https://fcm.googleapis.com/v1/projects/{project}/messages:send",
        {"authorization": f"Bearer {access}", "content-type": "application/json"}, body)
    return status, json.loads(rest) if rest.strip() else {}


status, answer = send(fcm["project"], fcm["token"])
checks["fcm_delivered"] = {"ok": status == 200 and answer.get("name", "").startswith(
    f"projects/{fcm['project']}/messages/"), "status": status}
status, answer = send(fcm["project"], "not-a-registration-token")
details = answer.get("error", {}).get("details", [{}])
checks["fcm_invalid_token"] = {"ok": status == 400 and details[0].get("errorCode") == "INVALID_ARGUMENT",
                               "status": status}

print(json.dumps(checks))
sys.exit(0 if all(check["ok"] for check in checks.values()) else 1)
