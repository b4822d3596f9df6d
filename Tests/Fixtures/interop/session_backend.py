#!/usr/bin/env python3
"""An independent implementation of the backend half of seed 002's mobile session contract,
written from the contract's text for `--stack` contract-mode tests. It shares no code with
qualify. Served over HTTPS.

Input (JSON on stdin): port, host ("localhost"), users [{login, password}], ca_file, and the
switches reuse_detection (default true) and rotation (default true) that a broken backend
turns off. Prints one line `{"origin": ...}` once it serves.
"""
import json
import secrets
import signal
import sys
import threading
import time
import uuid
import base64
import hashlib
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from test_ca import server_context

signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
host = config.get("host", "localhost")
USERS = {u["login"]: u["password"] for u in config["users"]}
REUSE_DETECTION = config.get("reuse_detection", True)
ROTATION = config.get("rotation", True)
ACCESS_TTL = 15 * 60
REFRESH_TTL = 30 * 24 * 3600

lock = threading.Lock()
devices = {}    # device id -> login
sessions = {}   # session id -> dict
BOOTSTRAP_VERSION = 7
RP_ID = ".".join(host.split(".")[1:]) if host.count(".") > 1 else host
CHALLENGE_TTL = 300
challenges = {}   # challenge -> (type, login, issued)
credentials = {}  # credential id -> {login, key, count}


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def ceremony(response, kind):
    """The WebAuthn checks both ceremonies share; returns (client bytes, auth bytes, count)
    or an error code."""
    try:
        client_bytes = b64d(response["clientDataJSON"])
        client = json.loads(client_bytes)
        auth = b64d(response["authenticatorData"])
    except (KeyError, ValueError, TypeError):
        return "invalid_request"
    issued = challenges.pop(client.get("challenge"), None)
    if client.get("type") != kind or issued is None or issued[0] != kind:
        return "invalid_credentials"
    if time.time() - issued[2] > CHALLENGE_TTL:
        return "challenge_expired"
    if client.get("origin") != "https://" + RP_ID:
        return "invalid_credentials"
    if len(auth) < 37 or auth[:32] != hashlib.sha256(RP_ID.encode()).digest() or not auth[32] & 1:
        return "invalid_credentials"
    return client_bytes, auth, int.from_bytes(auth[33:37], "big")


def iso(ts):
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def envelope(s):
    return {"accessToken": s["access"], "accessExpiresAt": iso(s["access_exp"]),
            "refreshToken": s["refresh"], "refreshExpiresAt": iso(s["refresh_exp"]),
            "sessionId": s["id"], "deviceId": s["device"], "bootstrapVersion": BOOTSTRAP_VERSION}


class Contract(BaseHTTPRequestHandler):
    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code):
        self.reply(status, {"error": code})

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            value = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def session(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return None, (401, "unauthenticated")
        token = auth[7:]
        for s in sessions.values():
            if s["access"] == token:
                if s["revoked"]:
                    return None, (401, "session_expired")
                if s["access_exp"] < time.time():
                    return None, (401, "access_token_expired")
                return s, None
        return None, (401, "session_expired")

    def do_POST(self):
        path = self.path.split("?")[0]
        body = self.body()
        with lock:
            if path == "/v1/mobile/auth/passkeys/login/options":
                challenge = secrets.token_urlsafe(32)
                challenges[challenge] = ("webauthn.get", None, time.time())
                return self.reply(200, {"challenge": challenge, "rpId": RP_ID, "timeout": CHALLENGE_TTL * 1000})
            if path == "/v1/mobile/auth/passkeys/login/verify":
                cred = credentials.get(body.get("id"))
                response = body.get("response") or {}
                if cred is None:
                    return self.error(401, "invalid_credentials")
                checked = ceremony(response, "webauthn.get")
                if isinstance(checked, str):
                    return self.error(401 if checked != "invalid_request" else 400, checked)
                client_bytes, auth, count = checked
                try:
                    cred["key"].verify(b64d(response.get("signature", "")),
                                       auth + hashlib.sha256(client_bytes).digest(),
                                       ec.ECDSA(hashes.SHA256()))
                except (InvalidSignature, ValueError):
                    return self.error(401, "invalid_credentials")
                if not (count == 0 and cred["count"] == 0) and count <= cred["count"]:
                    return self.error(401, "invalid_credentials")
                cred["count"] = count
                device = body.get("deviceId")
                if device is not None and devices.get(device) != cred["login"]:
                    return self.error(400, "invalid_device")
                if device is None:
                    device = str(uuid.uuid4())
                    devices[device] = cred["login"]
                now = time.time()
                s = {"id": "s_" + secrets.token_hex(6), "login": cred["login"], "device": device,
                     "access": secrets.token_urlsafe(24), "access_exp": now + ACCESS_TTL,
                     "refresh": secrets.token_urlsafe(32), "refresh_exp": now + REFRESH_TTL,
                     "used": set(), "revoked": False}
                sessions[s["id"]] = s
                return self.reply(200, envelope(s))
            if path == "/v1/mobile/auth/password/login":
                login, password = body.get("login"), body.get("password")
                if USERS.get(login) is None or USERS.get(login) != password:
                    return self.error(401, "invalid_credentials")
                device = body.get("deviceId")
                if device is not None and devices.get(device) != login:
                    return self.error(400, "invalid_device")
                if device is None:
                    device = str(uuid.uuid4())
                    devices[device] = login
                now = time.time()
                s = {"id": "s_" + secrets.token_hex(6), "login": login, "device": device,
                     "access": secrets.token_urlsafe(24), "access_exp": now + ACCESS_TTL,
                     "refresh": secrets.token_urlsafe(32), "refresh_exp": now + REFRESH_TTL,
                     "used": set(), "revoked": False}
                sessions[s["id"]] = s
                return self.reply(200, envelope(s))
            if path == "/v1/mobile/session/refresh":
                token = body.get("refreshToken")
                for s in sessions.values():
                    if token == s["refresh"]:
                        if s["revoked"]:
                            return self.error(401, "session_expired")
                        s["access"] = secrets.token_urlsafe(24)
                        s["access_exp"] = time.time() + ACCESS_TTL
                        if ROTATION:
                            s["used"].add(s["refresh"])
                            s["refresh"] = secrets.token_urlsafe(32)
                        return self.reply(200, envelope(s))
                    if token in s["used"]:
                        if REUSE_DETECTION:
                            s["revoked"] = True
                            return self.error(401, "refresh_reused")
                        return self.reply(200, envelope(s))
                return self.error(401, "session_expired")
            s, err = self.session()
            if err:
                return self.error(*err)
            if path == "/v1/mobile/auth/passkeys/register/options":
                challenge = secrets.token_urlsafe(32)
                challenges[challenge] = ("webauthn.create", s["login"], time.time())
                return self.reply(200, {"challenge": challenge, "rpId": RP_ID,
                                        "rp": {"id": RP_ID, "name": "contract"},
                                        "user": {"id": s["login"], "name": s["login"]},
                                        "pubKeyCredParams": [{"type": "public-key", "alg": -7}]})
            if path == "/v1/mobile/auth/passkeys/register/verify":
                response = body.get("response") or {}
                checked = ceremony(response, "webauthn.create")
                if isinstance(checked, str):
                    return self.error(401 if checked != "invalid_request" else 400, checked)
                try:
                    key = serialization.load_pem_public_key(b64d(response["publicKey"]))
                except (KeyError, ValueError):
                    return self.error(400, "invalid_request")
                if not isinstance(key, ec.EllipticCurvePublicKey) or not body.get("id"):
                    return self.error(400, "invalid_request")
                credentials[body["id"]] = {"login": s["login"], "key": key, "count": checked[2]}
                return self.reply(200, {"credentialId": body["id"]})
            if path == "/v1/mobile/session/logout":
                s["revoked"] = True
                return self.reply(204)
            if path == "/v1/mobile/session/logout-all":
                for other in sessions.values():
                    if other["login"] == s["login"]:
                        other["revoked"] = True
                return self.reply(204)
        self.error(404, "not_found")

    def do_GET(self):
        with lock:
            s, err = self.session()
            if err:
                return self.error(*err)
            path = self.path.split("?")[0]
            if path == "/v1/mobile/api/me":
                return self.reply(200, {
                    "user": {"login": s["login"]}, "person": {}, "roles": [], "permissions": [],
                    "auth": {"sessionId": s["id"], "deviceId": s["device"],
                             "authMethod": "password", "authLevel": "aal1", "passkeyEnrolled": False},
                    "bootstrapVersion": BOOTSTRAP_VERSION})
            if path == "/v1/mobile/session/devices":
                mine = [d for d, login in devices.items() if login == s["login"]]
                return self.reply(200, {"devices": [{"deviceId": d, "current": d == s["device"]} for d in mine]})
        self.error(404, "not_found")

    def do_DELETE(self):
        with lock:
            s, err = self.session()
            if err:
                return self.error(*err)
            prefix = "/v1/mobile/session/devices/"
            if self.path.startswith(prefix):
                device = self.path[len(prefix):]
                if devices.get(device) != s["login"]:
                    return self.error(404, "not_found")
                del devices[device]
                for other in sessions.values():
                    if other["device"] == device:
                        other["revoked"] = True
                return self.reply(204)
        self.error(404, "not_found")

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(config["port"])), Contract)
server.socket = server_context(host, config["ca_file"]).wrap_socket(server.socket, server_side=True)
print(json.dumps({"origin": f"https://{host}:{server.server_address[1]}"}), flush=True)
server.serve_forever()
