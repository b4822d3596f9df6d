#!/usr/bin/env python3
"""A second certified OpenID provider for `--stack` tests: django-oidc-provider, on loopback,
as its own example project sets it up — Django's LoginView with a login form that names no
action (or an empty one), the package's stock consent page (Accept / Decline) and its stock
end-session prompt. It shares no code with qualify and serves no admin event feed.

Input (JSON on stdin): port (0 or absent: any free one), clients [{client_id, client_secret,
redirect_uri, post_logout_redirect_uri, require_consent}], users [{username, password}],
database (a scratch file path), login_action (the login form's action attribute: absent
when null, else its text, "" included), fail_token_after (answer that many token requests,
then 503 to every other: an outage mid-run).
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

# This folder holds a peer named oidc_provider.py too: the package must win the import.
sys.path = [entry for entry in sys.path if entry != __import__("os").path.dirname(__file__)]
signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
port = int(config.get("port") or 0)
if port == 0:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
site = f"http://127.0.0.1:{port}"
key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
    serialization.NoEncryption()
).decode()

action = config.get("login_action")
action_attribute = "" if action is None else f' action="{action}"'
# The example project's registration/login.html, in its own words: a form posting back to
# the page it is on (its `?next=`), Django's fields, a <button> rather than an input.
login_template = (
    "<!doctype html><title>Login</title><h2>Log In</h2>"
    f"<form method=\"post\"{action_attribute}>{{% csrf_token %}}{{{{ form.as_p }}}}"
    "<button type=\"submit\" class=\"btn btn-primary btn-lg\">Log In</button></form>"
)

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY=secrets.token_urlsafe(32),
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
        "oidc_provider",
    ],
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    ],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": config["database"]}},
    TEMPLATES=[{
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": False,
        "OPTIONS": {
            "loaders": [
                ("django.template.loaders.locmem.Loader",
                 {"registration/login.html": login_template}),
                # The package's own templates: the consent page and the end-session prompt.
                "django.template.loaders.app_directories.Loader",
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    }],
    LOGIN_URL="/accounts/login/",
    # A persistent session cookie: the cross-app SSO condition of seed 000.
    SESSION_EXPIRE_AT_BROWSER_CLOSE=False,
    USE_TZ=True,
    # A fast hash for the test users' passwords and the clients' secrets: Django's default
    # (PBKDF2, ~10^6 rounds) costs half a second of CPU for every login and token request,
    # and the single-threaded server then queues a parallel run past its timeout on a busy
    # CI machine. How the provider stores a password is not what the tests check.
    PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
    SITE_URL=site,
)
django.setup()

from django.contrib.auth import views as auth_views
from django.contrib.auth.models import User
from django.core.management import call_command
from django.http import JsonResponse
from django.urls import include, path
from oidc_provider.models import Client, ResponseType, RSAKey
from oidc_provider.views import TokenView

token_view = TokenView.as_view()


answered = [0]


def token(request):
    # An outage of the provider, not a refusal: what a release manager's CI meets when the
    # real IdP goes down mid-run.
    limit = config.get("fail_token_after")
    if limit is not None and answered[0] >= limit:
        return JsonResponse({"detail": "Service Unavailable"}, status=503)
    answered[0] += 1
    return token_view(request)


from django.views.decorators.csrf import csrf_exempt

urlpatterns = [
    path("openid/token", csrf_exempt(token)),
    path("openid/", include("oidc_provider.urls", namespace="oidc_provider")),
    path("accounts/login/", auth_views.LoginView.as_view()),
]

call_command("migrate", verbosity=0)
RSAKey.objects.create(key=key)
for user in config["users"]:
    User.objects.create_user(user["username"], email=user["username"], password=user["password"])
code = ResponseType.objects.get(value="code")
for entry in config["clients"]:
    client = Client.objects.create(
        name=entry["client_id"], client_id=entry["client_id"],
        client_secret=entry["client_secret"], client_type="confidential", jwt_alg="RS256",
        require_consent=entry.get("require_consent", True), reuse_consent=True,
        _redirect_uris=entry["redirect_uri"],
        _post_logout_redirect_uris=entry.get("post_logout_redirect_uri", ""),
        _scope="",
    )
    client.response_types.add(code)

from django.core.wsgi import get_wsgi_application


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


server = make_server(
    "127.0.0.1", port, get_wsgi_application(), server_class=WSGIServer, handler_class=Quiet)
print(json.dumps({"issuer": site + "/openid"}), flush=True)
server.serve_forever()
