#!/usr/bin/env python3
"""A real backend for `--stack` tests: a Django app signing users in with mozilla-django-oidc
(the OIDC client library La Suite backends are built on) and handing the session to a mobile
app as seed 000 describes it. It shares no code with qualify.

Routes (seed 000, *Authentication architecture* and *Logout*):
  GET  /api/v1.0/config/                 the app's runtime config
  GET  /api/v1.0/authenticate/           ?mobile_scheme&code_challenge flag the login as mobile
  GET  /api/v1.0/callback/               the OIDC callback; a mobile login ends on a hand-off page
                                         leading to <scheme>://auth?token=<one-time token>
  POST /api/v1.0/mobile/auth/exchange/   {token, code_verifier} -> the session cookie
  POST /api/v1.0/mobile/auth/logout/     ends the session bound to the cookie (204)
  GET  /api/v1.0/logout/                 ends the session, then the IdP's; ends on <scheme>://logout
  GET  /api/v1.0/logout-callback/
  GET  /api/v1.0/users/me/               {id, email} of the session's user (401 without one)

Input (JSON on stdin): port, host ("localhost"), endpoints {authorization, token, jwks, userinfo,
end_session?}, client_id, client_secret, schemes [..], database and ca_file (paths to write),
verify_before_delete (a broken backend: the exchange compares the verifier before it burns the
token, so a failed attempt can be retried).
It serves HTTPS with a certificate from a CA it makes, whose PEM it writes to ca_file.
Prints one line `{"origin": ...}` once it serves, then serves until killed.
"""
import json
import secrets
import signal
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from test_ca import server_context

signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
host = config.get("host", "localhost")
port = int(config["port"])
origin = f"https://{host}:{port}"
endpoints = config["endpoints"]


import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY=secrets.token_urlsafe(32),
    ALLOWED_HOSTS=[host, "127.0.0.1"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
        "mozilla_django_oidc",
    ],
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    ],
    AUTHENTICATION_BACKENDS=[f"{__name__}.Backend"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": config["database"]}},
    CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
    SESSION_COOKIE_SECURE=True,
    SESSION_COOKIE_AGE=12 * 3600,
    CSRF_USE_SESSIONS=True,
    CSRF_TRUSTED_ORIGINS=[origin],
    USE_TZ=True,
    OIDC_RP_CLIENT_ID=config["client_id"],
    OIDC_RP_CLIENT_SECRET=config["client_secret"],
    OIDC_RP_SIGN_ALGO="RS256",
    OIDC_RP_SCOPES="openid email",
    OIDC_OP_AUTHORIZATION_ENDPOINT=endpoints["authorization"],
    OIDC_OP_TOKEN_ENDPOINT=endpoints["token"],
    OIDC_OP_USER_ENDPOINT=endpoints["userinfo"],
    OIDC_OP_JWKS_ENDPOINT=endpoints["jwks"],
    OIDC_STORE_ID_TOKEN=True,
    OIDC_AUTHENTICATION_CALLBACK_URL="callback",
    LOGIN_REDIRECT_URL="/",
    LOGIN_REDIRECT_URL_FAILURE="/",
)
django.setup()

import base64
import hashlib
import time
from urllib.parse import parse_qs, urlencode, urlparse

from django.contrib import auth
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBadRequest, HttpResponseRedirect, JsonResponse
from django.middleware.csrf import get_token
from django.urls import path
from django.utils.html import escape
from django.views.decorators.csrf import csrf_exempt
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (OIDCAuthenticationCallbackView,
                                       OIDCAuthenticationRequestView)

SCHEMES = list(config["schemes"])
FLAG_MAX_AGE = 600
TOKEN_TTL = 60
VERIFY_BEFORE_DELETE = bool(config.get("verify_before_delete", False))


class Backend(OIDCAuthenticationBackend):
    # Users are known by the IdP's subject; the email claim is what the API shows.
    def filter_users_by_claims(self, claims):
        return self.UserModel.objects.filter(username=claims.get("sub", ""))

    def create_user(self, claims):
        return self.UserModel.objects.create_user(claims["sub"], email=claims.get("email", ""))


class SchemeRedirect(HttpResponseRedirect):
    allowed_schemes = ["https", "http"] + SCHEMES


def requested_scheme(request):
    scheme = request.GET.get("mobile_scheme", "")
    if scheme and scheme not in SCHEMES:
        return None
    return scheme


class Authenticate(OIDCAuthenticationRequestView):
    def get(self, request):
        scheme = requested_scheme(request)
        if scheme is None:
            return HttpResponseBadRequest("Unknown mobile callback scheme.")
        if not scheme:
            return super().get(request)
        challenge = request.GET.get("code_challenge", "")
        if not challenge:
            return HttpResponseBadRequest("Missing code_challenge.")
        response = super().get(request)
        # Bound to this round trip's state, which the parent view just chose.
        request.session["mobile_login"] = {
            "scheme": scheme, "challenge": challenge, "created": time.time(),
            "state": parse_qs(urlparse(response["Location"]).query)["state"][0],
        }
        request.session.save()
        return response


def take_flag(session, key, state):
    flag = session.get(key)
    if not flag or not state or flag.get("state") != state:
        return None
    del session[key]
    session.save()
    return flag if time.time() - flag["created"] <= FLAG_MAX_AGE else None


def handoff(url):
    page = (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>Back to the app</title>"
            f"<meta http-equiv=\"refresh\" content=\"0;url={escape(url)}\"></head><body>"
            f"<p>Signed in.</p><p><a href=\"{escape(url)}\">Return to the app</a></p></body></html>")
    response = HttpResponse(page)
    response["Cache-Control"] = "no-store"
    return response


class Callback(OIDCAuthenticationCallbackView):
    def login_success(self):
        response = super().login_success()
        flag = take_flag(self.request.session, "mobile_login", self.request.GET.get("state"))
        if flag is None:
            return response
        token = secrets.token_urlsafe(32)
        cache.set(f"handoff:{token}", {"session": self.request.session.session_key,
                                       "challenge": flag["challenge"]}, timeout=TOKEN_TTL)
        return handoff(f"{flag['scheme']}://auth?{urlencode({'token': token})}")


def s256(verifier):
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@csrf_exempt
def exchange(request):
    if request.method != "POST":
        return JsonResponse({"detail": "Method not allowed."}, status=405)
    try:
        data = json.loads(request.body or b"{}")
    except ValueError:
        data = {}
    token = data.get("token") if isinstance(data, dict) else None
    verifier = data.get("code_verifier") if isinstance(data, dict) else None
    if not isinstance(token, str) or not isinstance(verifier, str) or not token or not verifier:
        return JsonResponse({"detail": "Missing token or code_verifier."}, status=400)
    key = f"handoff:{token}"
    entry = cache.get(key)
    if VERIFY_BEFORE_DELETE:
        # The bug seed 000 warns of: a failed attempt leaves the token for another verifier.
        matches = entry is not None and secrets.compare_digest(s256(verifier), entry["challenge"])
        burned = matches and cache.delete(key)
    else:
        # Burned before the verifier is compared: a failed attempt ends the token.
        burned = cache.delete(key)
    if entry is None or not burned or not secrets.compare_digest(s256(verifier), entry["challenge"]):
        return JsonResponse({"detail": "Invalid or expired token."}, status=403)
    store = request.session.__class__(entry["session"])
    if store.get(auth.SESSION_KEY) is None:
        return JsonResponse({"detail": "Session expired."}, status=403)
    request.session = store
    request.session.modified = True
    return JsonResponse({"csrf_token": get_token(request)})


def mobile_logout(request):
    if request.method != "POST":
        return JsonResponse({"detail": "Method not allowed."}, status=405)
    auth.logout(request)
    return HttpResponse(status=204)


def logout(request):
    scheme = requested_scheme(request)
    if scheme is None:
        return HttpResponseBadRequest("Unknown mobile callback scheme.")
    id_token = request.session.get("oidc_id_token")
    auth.logout(request)
    end = endpoints.get("end_session")
    if not end or not id_token:
        return SchemeRedirect(f"{scheme}://logout" if scheme else "/")
    state = secrets.token_urlsafe(16)
    request.session["mobile_logout"] = {"scheme": scheme, "state": state, "created": time.time()}
    request.session.save()
    return HttpResponseRedirect(end + "?" + urlencode({
        "id_token_hint": id_token, "state": state, "client_id": config["client_id"],
        "post_logout_redirect_uri": f"{origin}/api/v1.0/logout-callback/"}))


def logout_callback(request):
    flag = take_flag(request.session, "mobile_logout", request.GET.get("state"))
    auth.logout(request)
    if flag and flag["scheme"]:
        return SchemeRedirect(f"{flag['scheme']}://logout")
    return HttpResponseRedirect("/")


def me(request):
    if not request.user.is_authenticated:
        return JsonResponse({"detail": "Authentication credentials were not provided."}, status=401)
    # The backend's own id for the user, as a deployment gives it: not the IdP's subject.
    user_id = hashlib.sha256(f"user:{request.user.pk}".encode()).hexdigest()[:32]
    return JsonResponse({"id": user_id, "email": request.user.email,
                         "full_name": request.user.get_full_name()})


def app_config(request):
    return JsonResponse({"ENVIRONMENT": "staging", "MOBILE_AUTH_CALLBACK_SCHEMES": SCHEMES,
                         "MOBILE_OTA_MANIFEST_URL": None, "PUSH_ENABLED": False})


def home(request):
    who = escape(request.user.email) if request.user.is_authenticated else "nobody"
    return HttpResponse(f"<!doctype html><title>Messages</title><p>Signed in as {who}</p>")


urlpatterns = [
    path("api/v1.0/config/", app_config),
    path("api/v1.0/authenticate/", Authenticate.as_view(), name="authenticate"),
    path("api/v1.0/callback/", Callback.as_view(), name="callback"),
    path("api/v1.0/mobile/auth/exchange/", exchange),
    path("api/v1.0/mobile/auth/logout/", mobile_logout),
    path("api/v1.0/logout/", logout),
    path("api/v1.0/logout-callback/", logout_callback),
    path("api/v1.0/users/me/", me),
    path("", home),
]

from django.core.management import call_command
from django.core.wsgi import get_wsgi_application

call_command("migrate", verbosity=0)


class Handler(WSGIRequestHandler):
    def get_environ(self):
        environ = super().get_environ()
        environ["HTTPS"] = "on"
        return environ

    def log_message(self, *args):
        pass


server = make_server("127.0.0.1", port, get_wsgi_application(), server_class=WSGIServer,
                     handler_class=Handler)
server.socket = server_context(host, config["ca_file"]).wrap_socket(server.socket,
                                                                   server_side=True)
print(json.dumps({"origin": origin}), flush=True)
server.serve_forever()
