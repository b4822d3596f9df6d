#!/usr/bin/env python3
"""An independent OpenID Connect relying party, for the interoperability test of the mock IdP.

It shares no code with qualify: it speaks HTTP/1.1 over Python's ssl module, follows the
authorization code flow with PKCE through the IdP's login form, and validates the id_token
with the `cryptography` package against the JWKS the discovery document names.

Input (JSON on stdin): issuer, client_id, client_secret, redirect_uri, username, password,
acr (optional), ca (CA certificate file), connect (host:port -> loopback port).
Output (JSON on stdout): what it observed; exit 0 when every check passed.
"""
import base64
import hashlib
import json
import os
import re
import socket
import ssl
import sys
import time
from html import unescape
from urllib.parse import urlencode, urlsplit, parse_qs, urljoin

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

config = json.load(sys.stdin)
cookies = {}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def request(method, url, headers=None, body=b""):
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    loopback = config["connect"][f"{parts.hostname}:{port}"]
    sock = socket.create_connection(("127.0.0.1", loopback), timeout=10)
    if parts.scheme == "https":
        context = ssl.create_default_context(cafile=config["ca"])
        sock = context.wrap_socket(sock, server_hostname=parts.hostname)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    host = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close", f"Content-Length: {len(body)}"]
    jar = "; ".join(f"{k}={v}" for k, v in cookies.items())
    if jar:
        lines.append(f"Cookie: {jar}")
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
    head, _, payload = data.partition(b"\r\n\r\n")
    head_lines = head.decode("iso-8859-1").split("\r\n")
    status = int(head_lines[0].split(" ")[1])
    response_headers = []
    for line in head_lines[1:]:
        name, _, value = line.partition(":")
        response_headers.append((name.strip().lower(), value.strip()))
    if any(n == "transfer-encoding" and "chunked" in v.lower() for n, v in response_headers):
        decoded, rest = b"", payload
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            decoded, rest = decoded + rest[:size], rest[size + 2:]
        payload = decoded
    for name, value in response_headers:
        if name == "set-cookie":
            pair = value.split(";")[0]
            key, _, val = pair.partition("=")
            if "max-age=0" in value.lower():
                cookies.pop(key.strip(), None)
            else:
                cookies[key.strip()] = val.strip()
    return status, dict(response_headers), payload


def fail(message, **observed):
    print(json.dumps({"ok": False, "error": message, **observed}))
    sys.exit(1)


# Discovery.
status, _, body = request("GET", config["issuer"] + "/.well-known/openid-configuration")
if status != 200:
    fail(f"discovery answered {status}")
discovery = json.loads(body)
if discovery["issuer"] != config["issuer"]:
    fail("discovery issuer differs from the issuer", discovery=discovery["issuer"])
for key in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "end_session_endpoint"):
    if not discovery[key].startswith(config["issuer"].split("/", 3)[0] + "//" + urlsplit(config["issuer"]).netloc):
        fail(f"{key} is not on the issuer's origin")

# Authorization request with PKCE.
verifier = b64url(os.urandom(32))
challenge = b64url(hashlib.sha256(verifier.encode()).digest())
# ProConnect wants a state and a nonce of 32 characters at least.
state, nonce = b64url(os.urandom(32)), b64url(os.urandom(32))
params = {
    "response_type": "code", "client_id": config["client_id"], "redirect_uri": config["redirect_uri"],
    "scope": "openid email", "state": state, "nonce": nonce,
}
# PKCE when the provider announces S256 (ProConnect announces none and refuses its parameters).
pkce = "S256" in discovery.get("code_challenge_methods_supported", [])
if config.get("expect_pkce") is not None and pkce != config["expect_pkce"]:
    fail("code_challenge_methods_supported is not what the provider's profile says", pkce=pkce)
if pkce:
    params.update({"code_challenge": challenge, "code_challenge_method": "S256"})
if config.get("acr"):
    params["acr_values"] = config["acr"]
method, url, form_body = "GET", discovery["authorization_endpoint"] + "?" + urlencode(params), b""
code = None
form_seen = False
for _ in range(10):
    extra = {"Content-Type": "application/x-www-form-urlencoded"} if method == "POST" else {}
    status, headers, body = request(method, url, extra, form_body)
    if status in (301, 302, 303):
        location = urljoin(url, headers["location"])
        if location.startswith(config["redirect_uri"]):
            query = parse_qs(urlsplit(location).query)
            if query.get("state", [None])[0] != state:
                fail("the redirect's state differs")
            if query.get("iss", [config["issuer"]])[0] != config["issuer"]:
                fail("the redirect's iss differs (RFC 9207)")
            code = query["code"][0]
            break
        method, url, form_body = "GET", location, b""
        continue
    html = body.decode()
    form = re.search(r"<form[^>]*action=\"([^\"]+)\"[^>]*>(.*?)</form>", html, re.S)
    if status != 200 or not form:
        fail(f"expected the login form, got {status}")
    form_seen = True
    fields = {}
    for tag in re.findall(r"<input[^>]*>", form.group(2)):
        name = re.search(r'name="([^"]+)"', tag)
        kind = re.search(r'type="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if not name:
            continue
        name, kind = name.group(1), kind.group(1) if kind else "text"
        if kind == "password":
            fields[name] = config["password"]
        elif kind in ("text", "email"):
            fields[name] = config["username"]
        elif kind != "checkbox":
            fields[name] = unescape(value.group(1)) if value else ""
    method, url, form_body = "POST", urljoin(url, unescape(form.group(1))), urlencode(fields).encode()
if code is None:
    fail("no authorization code came back")

# Token request, authenticated as discovery offers: client_secret_basic when listed (or when
# discovery lists nothing, its default), else client_secret_post.
offered = discovery.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": config["redirect_uri"],
         **({"code_verifier": verifier} if pkce else {})}
headers = {"Content-Type": "application/x-www-form-urlencoded"}
if "client_secret_basic" in offered:
    basic = base64.b64encode(f"{config['client_id']}:{config['client_secret']}".encode()).decode()
    headers["Authorization"] = f"Basic {basic}"
else:
    grant.update(client_id=config["client_id"], client_secret=config["client_secret"])
status, _, body = request("POST", discovery["token_endpoint"], headers, urlencode(grant).encode())
if status != 200:
    fail(f"token endpoint answered {status}: {body[:200]!r}")
tokens = json.loads(body)

# id_token: RS256 signature against the published JWKS, then the claims an RP checks.
header_b64, claims_b64, signature_b64 = tokens["id_token"].split(".")
header = json.loads(b64url_decode(header_b64))
claims = json.loads(b64url_decode(claims_b64))
status, _, body = request("GET", discovery["jwks_uri"])
keys = {key["kid"]: key for key in json.loads(body)["keys"]}
if header.get("alg") != "RS256" or header.get("kid") not in keys:
    fail("the id_token is not RS256 with a published kid", header=header)
jwk = keys[header["kid"]]
public_key = rsa.RSAPublicNumbers(int.from_bytes(b64url_decode(jwk["e"]), "big"),
                                  int.from_bytes(b64url_decode(jwk["n"]), "big")).public_key()
try:
    public_key.verify(b64url_decode(signature_b64), f"{header_b64}.{claims_b64}".encode(), padding.PKCS1v15(), hashes.SHA256())
except Exception:
    fail("the id_token signature does not verify against the JWKS")
if claims["iss"] != discovery["issuer"]:
    fail("iss claim differs from the discovery issuer")
aud = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
if config["client_id"] not in aud:
    fail("aud claim does not name the client")
if claims.get("nonce") != nonce:
    fail("nonce claim differs")
if not claims["exp"] > claims["iat"]:
    fail("exp is not after iat")
if config.get("acr") and claims.get("acr") != config["acr"]:
    fail("acr claim is not the requested one", acr=claims.get("acr"))
# Tampering must break the signature.
tampered = b64url(json.dumps({**claims, "sub": "mallory"}).encode())
try:
    public_key.verify(b64url_decode(signature_b64), f"{header_b64}.{tampered}".encode(), padding.PKCS1v15(), hashes.SHA256())
    fail("a tampered id_token still verifies")
except Exception:
    pass

status, headers, body = request("GET", discovery["userinfo_endpoint"], {"Authorization": f"Bearer {tokens['access_token']}"})
if status != 200:
    fail(f"userinfo answered {status}")
if headers.get("content-type", "").startswith("application/jwt"):
    # ProConnect signs userinfo: verify it like the id_token.
    u_header, u_claims, u_signature = body.decode().split(".")
    try:
        public_key.verify(b64url_decode(u_signature), f"{u_header}.{u_claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    except Exception:
        fail("the signed userinfo does not verify against the JWKS")
    info = json.loads(b64url_decode(u_claims))
    if info.get("aud") != config["client_id"] or info.get("iss") != discovery["issuer"]:
        fail("the signed userinfo is not for this client from this issuer")
else:
    info = json.loads(body)
if info["sub"] != claims["sub"]:
    fail("userinfo does not agree with the id_token")

print(json.dumps({"ok": True, "form_seen": form_seen, "sub": claims["sub"], "acr": claims.get("acr"),
                  "kid": header["kid"], "issuer": discovery["issuer"]}))
