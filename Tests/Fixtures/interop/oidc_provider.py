#!/usr/bin/env python3
"""A real OpenID provider for `--stack` tests: django-oauth-toolkit in its OIDC mode, on
loopback, with a Django login form. It shares no code with qualify.

With `admin` ({username, password, realm}) it also serves the part of Keycloak's admin API a
harness reads: a password grant for `admin-cli` at /realms/master/protocol/openid-connect/token,
and /admin/realms/<realm>/events (newest first, Bearer token) recording LOGIN and CODE_TO_TOKEN
as Keycloak does, with /admin/realms/<realm>/events/config.

Input (JSON on stdin): port (0 or absent: any free one), clients [{client_id, client_secret, redirect_uri}], users
[{username, password}], session_cookie_persistent (bool), database (a scratch file path).
Prints one line `{"issuer": ...}` once it serves, then serves until killed.
"""
import json
import secrets
import signal
import socket
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

# A parent may have left SIGTERM ignored: make it end the server again.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
port = int(config.get("port") or 0)
if port == 0:
    # A free loopback port, chosen before the settings need the issuer.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
issuer = f"http://127.0.0.1:{port}/o"
key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
).decode()

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY=secrets.token_urlsafe(32),
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
        "oauth2_provider",
    ],
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    ],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": config["database"]}},
    TEMPLATES=[{
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "OPTIONS": {
            "loaders": [("django.template.loaders.locmem.Loader", {
                "registration/login.html":
                    "<!doctype html><title>Sign in</title><h1>Sign in</h1>"
                    "<form method=\"post\">{% csrf_token %}{{ form.as_p }}"
                    "<input type=\"hidden\" name=\"next\" value=\"{{ next }}\">"
                    "<input type=\"submit\" value=\"Sign in\"></form>",
            })],
            "context_processors": ["django.template.context_processors.request"],
        },
    }],
    LOGIN_URL="/accounts/login/",
    # The cross-app SSO condition of seed 000: a persistent IdP cookie. Without it the session
    # cookie dies with the browser session, which an iOS auth session does not share.
    SESSION_EXPIRE_AT_BROWSER_CLOSE=not config.get("session_cookie_persistent", True),
    USE_TZ=True,
    # A fast hash for the test users' passwords and the clients' secrets: Django's default
    # (PBKDF2, ~10^6 rounds) costs half a second of CPU for every login and token request,
    # and the single-threaded server then queues a parallel run past its timeout on a busy
    # CI machine. How the provider stores a password is not what the tests check.
    PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
    OAUTH2_PROVIDER={
        "OIDC_ENABLED": True,
        "OIDC_RSA_PRIVATE_KEY": key,
        "OIDC_ISS_ENDPOINT": issuer,
        "PKCE_REQUIRED": False,
        "OAUTH2_VALIDATOR_CLASS": f"{__name__}.Validator",
        "SCOPES": {"openid": "OpenID Connect", "email": "Email", "profile": "Profile"},
    },
)
django.setup()

from django.contrib.auth import views as auth_views
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import include, path
from oauth2_provider.models import Application
from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    # The subject stays django-oauth-toolkit's own (the user's primary key): an opaque id,
    # as real providers give, which the stack file maps to its test accounts.
    def get_additional_claims(self, request):
        return {"email": request.user.email}


import time
from urllib.parse import parse_qs, urlsplit

from django.contrib.auth.signals import user_logged_in
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.signals import app_authorized

admin = config.get("admin")
events = []  # oldest first; served newest first, as Keycloak does
admin_tokens = set()


def record(kind, client_id, user):
    events.append({
        "type": kind, "time": int(time.time() * 1000), "clientId": client_id,
        "userId": str(user.pk), "details": {"username": user.username},
    })


def on_login(sender, request, user, **kwargs):
    # The client is the one whose authorization request the login form was shown for.
    nxt = request.POST.get("next") or request.GET.get("next") or ""
    client = parse_qs(urlsplit(nxt).query).get("client_id", [None])[0]
    record("LOGIN", client, user)


def on_token(sender, request, token, **kwargs):
    record("CODE_TO_TOKEN", token.application.client_id, token.user)


user_logged_in.connect(on_login)
app_authorized.connect(on_token)


@csrf_exempt
def admin_token(request):
    if (admin and request.POST.get("grant_type") == "password"
            and request.POST.get("client_id") == "admin-cli"
            and request.POST.get("username") == admin["username"]
            and request.POST.get("password") == admin["password"]):
        token = secrets.token_urlsafe(24)
        admin_tokens.add(token)
        return JsonResponse({"access_token": token, "token_type": "Bearer", "expires_in": 60})
    return JsonResponse({"error": "invalid_grant"}, status=401)


def authorized(request):
    header = request.headers.get("Authorization", "")
    return header.startswith("Bearer ") and header[7:] in admin_tokens


def admin_events(request, realm):
    if not admin or realm != admin.get("realm") or not authorized(request):
        return JsonResponse({"error": "HTTP 401 Unauthorized"}, status=401)
    count = int(request.GET.get("max", "100"))
    return JsonResponse(list(reversed(events))[:count], safe=False)


def admin_events_config(request, realm):
    if not admin or realm != admin.get("realm") or not authorized(request):
        return JsonResponse({"error": "HTTP 401 Unauthorized"}, status=401)
    return JsonResponse({"eventsEnabled": True, "enabledEventTypes": ["LOGIN", "CODE_TO_TOKEN"]})


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", auth_views.LoginView.as_view()),
    path("realms/master/protocol/openid-connect/token", admin_token),
    path("admin/realms/<str:realm>/events", admin_events),
    path("admin/realms/<str:realm>/events/config", admin_events_config),
]

call_command("migrate", verbosity=0)
for user in config["users"]:
    User.objects.create_user(user["username"], email=user["username"], password=user["password"])
for client in config["clients"]:
    Application.objects.create(
        name=client["client_id"], client_id=client["client_id"],
        client_secret=client["client_secret"], client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=client["redirect_uri"], skip_authorization=True,
        algorithm=Application.RS256_ALGORITHM,
    )

from django.core.wsgi import get_wsgi_application


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


# One request at a time: SQLite under Django does not take concurrent writers, and a test IdP
# needs no more (each answer takes a few milliseconds but the client-secret hash).
server = make_server("127.0.0.1", port, get_wsgi_application(), server_class=WSGIServer, handler_class=Quiet)
print(json.dumps({"issuer": issuer}), flush=True)
server.serve_forever()
