"""memsite settings. Every value comes from the environment, read and validated here only."""

import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from memsite.env import (
    env_address,
    env_bool,
    env_choice,
    env_cron,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_optional_float,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VERSION = "0.1.0"


def _secret_key():
    """SECRET_KEY from the environment, else one generated once and kept in .secret_key."""
    key = env_str("SECRET_KEY")
    if key:
        return key
    path = BASE_DIR / ".secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
# Where `make run` serves the web process (gunicorn reads these through memsite/gunicorn_conf.py).
WEB_BIND = env_address("MEMSITE_BIND", "127.0.0.1")
WEB_PORT = env_int("MEMSITE_PORT", 8000, 1, 65535)
# Proxies whose X-Forwarded-For is believed (memsite/addresses.py); none by default.
TRUSTED_PROXIES = env_networks("MEMSITE_TRUSTED_PROXIES")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

EMBEDDED_DATABASE_URL = (
    f"postgres://postgres@127.0.0.1:{env_int('MEMSITE_PG_PORT', 54329, 1024, 65535)}/memsite"
)
try:
    _database = dj_database_url.parse(env_str("DATABASE_URL") or EMBEDDED_DATABASE_URL)
except ValueError as error:
    raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {error}") from None
if _database["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must be a postgres:// URL (PostgreSQL with pgvector and AGE)")
# The same PostgreSQL backend, counting queries and errors for GET /metrics.
_database["ENGINE"] = "django_prometheus.db.backends.postgresql"
# No JIT compilation: the statements here run for milliseconds, and compiling the large ones (the
# dashboard's aggregates over every memory) cost about 100 ms a page at 100,000 memories.
_database["OPTIONS"] = {
    "options": "-c search_path=public,ag_catalog -c jit=off",
    "connect_timeout": env_int("MEMSITE_DB_CONNECT_TIMEOUT", 5, 1, 60),
}
_database["CONN_MAX_AGE"] = env_int("MEMSITE_DB_CONN_MAX_AGE", 60, 0, 3600)
_database["CONN_HEALTH_CHECKS"] = True
_database["TEST"] = {"NAME": env_str("MEMSITE_TEST_DATABASE_NAME") or None}
DATABASES = {"default": _database}

# --- Read replicas (memsite/replicas.py): hot standbys of the primary, one alias each ---
REPLICA_ALIASES = []
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URLS", []), start=1):
    try:
        _replica = dj_database_url.parse(_url)
    except ValueError as error:
        raise ImproperlyConfigured(
            f"DATABASE_REPLICA_URLS entry {_number} is not a valid database URL: {error}"
        ) from None
    if _replica["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(f"DATABASE_REPLICA_URLS entry {_number} must be a postgres:// URL")
    # Tests read the replicas' copy of the test database: they are never created nor flushed.
    _replica.update(
        ENGINE=_database["ENGINE"],
        OPTIONS=_database["OPTIONS"],
        CONN_MAX_AGE=_database["CONN_MAX_AGE"],
        CONN_HEALTH_CHECKS=True,
        TEST={"MIRROR": "default"},
    )
    DATABASES[f"replica_{_number}"] = _replica
    REPLICA_ALIASES.append(f"replica_{_number}")
DATABASE_ROUTERS = ["memsite.replicas.ReplicaRouter"]
# A replica further behind than this is skipped (its reads go to the primary).
REPLICA_MAX_LAG_SECONDS = env_float("MEMSITE_REPLICA_MAX_LAG_SECONDS", 5, 0, 3600)
# How long a process trusts its last measurement of a replica's state and lag.
REPLICA_CHECK_SECONDS = env_float("MEMSITE_REPLICA_CHECK_SECONDS", 5, 0, 300)
# After a write the user's reads stay on the primary this long. A replica in use was at most
# MAX_LAG behind when measured, and CHECK seconds may have passed since: a pin that long at
# least covers it, so a user always reads their own writes.
REPLICA_PIN_SECONDS = env_float("MEMSITE_REPLICA_PIN_SECONDS", 10, 0, 86400)
if REPLICA_PIN_SECONDS < REPLICA_MAX_LAG_SECONDS + REPLICA_CHECK_SECONDS:
    raise ImproperlyConfigured(
        "MEMSITE_REPLICA_PIN_SECONDS must be at least MEMSITE_REPLICA_MAX_LAG_SECONDS + "
        f"MEMSITE_REPLICA_CHECK_SECONDS (got {REPLICA_PIN_SECONDS}, needs "
        f"{REPLICA_MAX_LAG_SECONDS + REPLICA_CHECK_SECONDS}) so that users read their own writes"
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "axes",
    "procrastinate.contrib.django",
    "django_prometheus",
    "memsite",
    "memories",
    "graph",
    "quality",
    "portability",
    "dashboard",
    "mcp_server",
]

MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memsite.middleware.RequestSizeLimitMiddleware",
    "memsite.middleware.DatabaseUnavailableMiddleware",
    "memsite.middleware.ReplicaRoutingMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "memsite.urls"
WSGI_APPLICATION = "memsite.wsgi.application"
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
            ],
        },
    },
]

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "memsite_cache",
    }
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / ".staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Repeated failed sign-ins (dashboard and admin) lock out that username from that address
# (django-axes) for a while; a successful sign-in resets the count.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("MEMSITE_LOGIN_FAILURE_LIMIT", 5, 1, 1000)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("MEMSITE_LOGIN_LOCKOUT_MINUTES", 15, 1, 10080))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "memsite.addresses.client_address"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/dashboard/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

# --- API plumbing (SPEC section 4) ---
MAX_REQUEST_BYTES = env_int("MEMSITE_MAX_REQUEST_BYTES", 5 * 1024 * 1024, 1024, 100 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
# A memory's `metadata`, as compact UTF-8 JSON, is refused (400) above this many bytes.
MAX_METADATA_BYTES = env_int("MEMSITE_MAX_METADATA_BYTES", 64 * 1024, 2, 100 * 1024 * 1024)
# POST /import takes a whole file, so it has its own, larger limit.
IMPORT_MAX_BYTES = env_int("MEMSITE_IMPORT_MAX_BYTES", 100 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024)
MAX_REQUEST_BYTES_BY_PATH = {"/import": IMPORT_MAX_BYTES, "/dashboard/import/": IMPORT_MAX_BYTES}
THROTTLE_USER_PER_MINUTE = env_int("MEMSITE_THROTTLE_USER_PER_MINUTE", 1200, 1, 1_000_000)
THROTTLE_ANON_PER_MINUTE = env_int("MEMSITE_THROTTLE_ANON_PER_MINUTE", 120, 1, 1_000_000)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "memsite.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["memsite.api.parsers.SafeJSONParser"],
    "DEFAULT_THROTTLE_CLASSES": [
        "memsite.api.throttling.AnonRateThrottle",
        "memsite.api.throttling.UserRateThrottle",
    ],
    "EXCEPTION_HANDLER": "memsite.api.exceptions.envelope_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "memsite.api.schema.EnvelopeAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "memsite API",
    "DESCRIPTION": "Long-term memory for AI assistants: store, recall, associate, measure quality.",
    "VERSION": VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- MCP server: `manage.py mcp` (stdio) acts for the owner of this API token ---
MCP_TOKEN = env_str("MEMSITE_MCP_TOKEN")

# --- Embeddings (SPEC section 2) ---
EMBEDDING_PROVIDER = env_str("MEMSITE_EMBEDDING_PROVIDER", "memories.embeddings.OnnxProvider")
EMBEDDING_MODEL_PATH = env_str("MEMSITE_EMBEDDING_MODEL_PATH")
# Where the ONNX export of the model is kept (made by `make setup` or on first use).
EMBEDDING_CACHE_DIR = Path(env_str("MEMSITE_EMBEDDING_CACHE_DIR") or BASE_DIR / ".cache" / "embeddings")
EMBEDDING_DIMENSIONS = 384
EMBEDDING_BATCH_SIZE = env_int("MEMSITE_EMBEDDING_BATCH_SIZE", 64, 1, 1024)
# Threads per encode of short inputs: one keeps concurrent workers from fighting over the cores.
EMBEDDING_THREADS = env_int("MEMSITE_EMBEDDING_THREADS", 1, 1, 64)
# Threads for bulk encoding (a full batch or more); 0 means one per core.
EMBEDDING_BULK_THREADS = env_int("MEMSITE_EMBEDDING_BULK_THREADS", 0, 0, 64)

# --- Recall (SPEC section 5) ---
RECALL_WEIGHTS = {
    "vector": env_float("MEMSITE_RECALL_WEIGHT_VECTOR", 0.25, 0, 1),
    "keyword": env_float("MEMSITE_RECALL_WEIGHT_KEYWORD", 0.35, 0, 1),
    "relation": env_float("MEMSITE_RECALL_WEIGHT_RELATION", 0.0, 0, 1),
    "tag": env_float("MEMSITE_RECALL_WEIGHT_TAG", 0.20, 0, 1),
    "importance": env_float("MEMSITE_RECALL_WEIGHT_IMPORTANCE", 0.10, 0, 1),
    "confidence": env_float("MEMSITE_RECALL_WEIGHT_CONFIDENCE", 0.05, 0, 1),
    "recency": env_float("MEMSITE_RECALL_WEIGHT_RECENCY", 0.10, 0, 1),
    "context": env_float("MEMSITE_RECALL_WEIGHT_CONTEXT", 0.6, 0, 1),
    "time": env_float("MEMSITE_RECALL_WEIGHT_TIME", 0.1, 0, 1),
    "statement": env_float("MEMSITE_RECALL_WEIGHT_STATEMENT", 0.04, 0, 1),
    "answer": env_float("MEMSITE_RECALL_WEIGHT_ANSWER", 0.05, 0, 1),
    # Subtracted, not added: a memory another one has replaced ranks below it.
    "superseded": env_float("MEMSITE_RECALL_WEIGHT_SUPERSEDED", 0.3, 0, 1),
    # Subtracted too: a memory a newer one on the same subject matches about as well as.
    "overtaken": env_float("MEMSITE_RECALL_WEIGHT_OVERTAKEN", 0.3, 0, 1),
}
# How close (cosine similarity of the embeddings) a newer memory must be to overtake an older one.
RECALL_OVERTAKEN_SIMILARITY = env_float("MEMSITE_RECALL_OVERTAKEN_SIMILARITY", 0.4, 0, 1)
# The context a memory inherits from a PRECEDED_BY neighbour two steps away counts this much of
# what it inherits from one a step away.
RECALL_CONTEXT_DECAY = env_float("MEMSITE_RECALL_CONTEXT_DECAY", 0.85, 0, 1)
RECALL_CANDIDATES = env_int("MEMSITE_RECALL_CANDIDATES", 100, 10, 2000)
RECALL_COMMON_TERM_MATCHES = env_int("MEMSITE_RECALL_COMMON_TERM_MATCHES", 5000, 1, 1_000_000_000)
RECALL_HNSW_EF_SEARCH = env_int("MEMSITE_RECALL_HNSW_EF_SEARCH", 100, 10, 1000)
RECALL_HNSW_MAX_SCAN_TUPLES = env_int("MEMSITE_RECALL_HNSW_MAX_SCAN_TUPLES", 2000, 100, 1_000_000)

# --- Graph enrichment (SPEC section 6) ---
ENRICHMENT_ENABLED = env_bool("MEMSITE_ENRICHMENT_ENABLED", True)
ENRICHMENT_SIMILAR_MIN_COSINE = env_float("MEMSITE_ENRICHMENT_SIMILAR_MIN_COSINE", 0.8, 0, 1)
ENRICHMENT_SIMILAR_LIMIT = env_int("MEMSITE_ENRICHMENT_SIMILAR_LIMIT", 5, 0, 50)
ENRICHMENT_PRECEDED_MAX_DAYS = env_int("MEMSITE_ENRICHMENT_PRECEDED_MAX_DAYS", 7, 0, 3650)
ENRICHMENT_ENTITY_TAGS = env_bool("MEMSITE_ENRICHMENT_ENTITY_TAGS", True)
# Other pending memories an enrichment job takes along with its own (0: only its own).
ENRICHMENT_TAKE_PENDING = env_int("MEMSITE_ENRICHMENT_TAKE_PENDING", 100, 0, 5000)
# Recalls count their accesses in batches: the job that applies them starts this long after the
# first recall of a window (0 = at once, one job whenever none is waiting).
ACCESS_APPLY_DELAY_SECONDS = env_int("MEMSITE_ACCESS_APPLY_DELAY_SECONDS", 10, 0, 3600)

# --- Quality metrics (SPEC section 7, seed 001's QualityMetricsConfig) ---
QUALITY_WEIGHTS = {
    "accuracy": env_float("MEMSITE_QUALITY_WEIGHT_ACCURACY", 0.3, 0, 1),
    "completeness": env_float("MEMSITE_QUALITY_WEIGHT_COMPLETENESS", 0.2, 0, 1),
    "consistency": env_float("MEMSITE_QUALITY_WEIGHT_CONSISTENCY", 0.2, 0, 1),
    "timeliness": env_float("MEMSITE_QUALITY_WEIGHT_TIMELINESS", 0.15, 0, 1),
    "relevance": env_float("MEMSITE_QUALITY_WEIGHT_RELEVANCE", 0.15, 0, 1),
}
if abs(sum(QUALITY_WEIGHTS.values()) - 1) > 0.001:
    raise ImproperlyConfigured(
        "MEMSITE_QUALITY_WEIGHT_ACCURACY, _COMPLETENESS, _CONSISTENCY, _TIMELINESS and _RELEVANCE "
        f"must sum to 1 within 0.001 (they sum to {sum(QUALITY_WEIGHTS.values()):.4f})"
    )
QUALITY_MAX_AGE_DAYS = env_float("MEMSITE_QUALITY_MAX_AGE_DAYS", 90, 1, 36500)
QUALITY_TIMELINESS_DECAY = env_float("MEMSITE_QUALITY_TIMELINESS_DECAY", 0.01, 0, 1)
QUALITY_MIN_THRESHOLD = env_float("MEMSITE_QUALITY_MIN_THRESHOLD", 0.3, 0, 1)
QUALITY_WARNING_THRESHOLD = env_float("MEMSITE_QUALITY_WARNING_THRESHOLD", 0.5, 0, 1)
QUALITY_AUTO_CLEANUP = env_bool("MEMSITE_QUALITY_AUTO_CLEANUP", False)
QUALITY_CLEANUP_GRACE_DAYS = env_int("MEMSITE_QUALITY_CLEANUP_GRACE_DAYS", 30, 0, 3650)
DETECT_DUPLICATE_MIN_COSINE = env_float("MEMSITE_DETECT_DUPLICATE_MIN_COSINE", 0.95, 0.5, 1)
DETECT_CONTRADICTION_MIN_COSINE = env_float("MEMSITE_DETECT_CONTRADICTION_MIN_COSINE", 0.75, 0.3, 1)
DETECT_OUTDATED_DAYS = env_int("MEMSITE_DETECT_OUTDATED_DAYS", 180, 1, 36500)
DETECT_LOW_CONFIDENCE = env_float("MEMSITE_DETECT_LOW_CONFIDENCE", 0.4, 0, 1)
DETECT_NEIGHBOURS = env_int("MEMSITE_DETECT_NEIGHBOURS", 10, 1, 100)
DETECT_HNSW_EF_SEARCH = env_int("MEMSITE_DETECT_HNSW_EF_SEARCH", 40, 10, 1000)
# Supersession proposals (quality/supersession.py): a proposal at least this confident, whose
# newer memory names the old value as gone or swaps it for another, is applied at once (an
# INVALIDATED_BY association of origin enrichment, reversible); one between the minimum and this
# waits for a curator; below the minimum nothing is proposed.
SUPERSEDE_AUTO_CONFIDENCE = env_float("MEMSITE_SUPERSEDE_AUTO_CONFIDENCE", 0.85, 0, 1)
SUPERSEDE_MIN_CONFIDENCE = env_float("MEMSITE_SUPERSEDE_MIN_CONFIDENCE", 0.7, 0, 1)
if SUPERSEDE_MIN_CONFIDENCE > SUPERSEDE_AUTO_CONFIDENCE:
    raise ImproperlyConfigured(
        "MEMSITE_SUPERSEDE_MIN_CONFIDENCE must not exceed MEMSITE_SUPERSEDE_AUTO_CONFIDENCE "
        f"(got {SUPERSEDE_MIN_CONFIDENCE} and {SUPERSEDE_AUTO_CONFIDENCE})"
    )
# Older memories of the owner, nearest first, that each new memory is compared with.
SUPERSEDE_NEIGHBOURS = env_int("MEMSITE_SUPERSEDE_NEIGHBOURS", 15, 1, 100)

# --- Consolidation (SPEC section 8, seed 000's variable names) ---
BOOST_ENABLED = env_bool("MCP_CONSOLIDATION_QUALITY_BOOST_ENABLED", True)
BOOST_MIN_CONNECTIONS = env_int("MCP_CONSOLIDATION_MIN_CONNECTIONS_FOR_BOOST", 5, 1, 100)
BOOST_FACTOR = env_float("MCP_CONSOLIDATION_QUALITY_BOOST_FACTOR", 1.2, 1.0, 2.0)
BOOST_MIN_CONNECTED_QUALITY = env_optional_float("MCP_CONSOLIDATION_MIN_CONNECTED_QUALITY", 0, 1)
BOOST_DECAY_ENABLED = env_bool("MCP_CONSOLIDATION_BOOST_DECAY_ENABLED", True)
BOOST_BIDIRECTIONAL_ENABLED = env_bool("MCP_CONSOLIDATION_BIDIRECTIONAL_BOOST_ENABLED", False)
BOOST_COUNT_ENRICHMENT_EDGES = env_bool("MEMSITE_BOOST_COUNT_ENRICHMENT_EDGES", False)
RETENTION_HIGH_DAYS = env_int("MCP_QUALITY_RETENTION_HIGH", 365, 1, 36500)
RETENTION_MEDIUM_DAYS = env_int("MCP_QUALITY_RETENTION_MEDIUM", 180, 1, 36500)
RETENTION_LOW_MIN_DAYS = env_int("MCP_QUALITY_RETENTION_LOW_MIN", 30, 1, 36500)
RETENTION_LOW_MAX_DAYS = env_int("MCP_QUALITY_RETENTION_LOW_MAX", 90, 1, 36500)
# Retention archives memories superseded for longer than this (0: superseded memories stay).
SUPERSEDED_RETENTION_DAYS = env_int("MEMSITE_SUPERSEDED_RETENTION_DAYS", 0, 0, 36500)
if RETENTION_LOW_MIN_DAYS > RETENTION_LOW_MAX_DAYS:
    raise ImproperlyConfigured("MCP_QUALITY_RETENTION_LOW_MIN must not exceed MCP_QUALITY_RETENTION_LOW_MAX")

# --- Background jobs (Procrastinate, in the same database) and their schedules ---
# Each schedule is a five-field cron expression in UTC; an empty value turns it off.
CONSOLIDATION_CRON = env_cron("MEMSITE_CONSOLIDATION_CRON", "30 3 * * *")
DETECTION_CRON = env_cron("MEMSITE_DETECTION_CRON", "0 3 * * *")
ENRICHMENT_SWEEP_CRON = env_cron("MEMSITE_ENRICHMENT_SWEEP_CRON", "*/5 * * * *")
# A memory still pending this long after its store is re-queued by the sweep.
ENRICHMENT_SWEEP_AFTER_SECONDS = env_int("MEMSITE_ENRICHMENT_SWEEP_AFTER_SECONDS", 120, 10, 86400)
# /health says "degraded" when jobs wait and no worker has sent a heartbeat for this long.
WORKER_STALE_SECONDS = env_int("MEMSITE_WORKER_STALE_SECONDS", 180, 30, 86400)
# Bearer token for GET /metrics (staff sessions are always let in); empty = staff only.
METRICS_TOKEN = env_str("MEMSITE_METRICS_TOKEN")
# Worker defaults (heartbeat, outcome recording) are set when the job app is ready.
PROCRASTINATE_ON_APP_READY = "memsite.jobs.configure_app"

# --- Association discovery (consolidation phase before the boost) ---
DISCOVERY_ENABLED = env_bool("MEMSITE_DISCOVERY_ENABLED", True)
DISCOVERY_MIN_SIMILARITY = env_float("MEMSITE_DISCOVERY_MIN_SIMILARITY", 0.5, 0, 1)
DISCOVERY_MAX_SIMILARITY = env_float("MEMSITE_DISCOVERY_MAX_SIMILARITY", 0.8, 0, 1)
if not DISCOVERY_MIN_SIMILARITY < DISCOVERY_MAX_SIMILARITY <= min(
    ENRICHMENT_SIMILAR_MIN_COSINE, DETECT_DUPLICATE_MIN_COSINE
):
    raise ImproperlyConfigured(
        "MEMSITE_DISCOVERY_MIN_SIMILARITY must be below MEMSITE_DISCOVERY_MAX_SIMILARITY, which must "
        "not exceed MEMSITE_ENRICHMENT_SIMILAR_MIN_COSINE nor MEMSITE_DETECT_DUPLICATE_MIN_COSINE "
        f"(got {DISCOVERY_MIN_SIMILARITY} and {DISCOVERY_MAX_SIMILARITY})"
    )
DISCOVERY_NEIGHBOURS = env_int("MEMSITE_DISCOVERY_NEIGHBOURS", 10, 1, 100)
DISCOVERY_TEMPORAL_WINDOW_MINUTES = env_int("MEMSITE_DISCOVERY_TEMPORAL_WINDOW_MINUTES", 60, 0, 43200)
DISCOVERY_MAX_PER_MEMORY = env_int("MEMSITE_DISCOVERY_MAX_PER_MEMORY", 3, 1, 50)
DISCOVERY_MAX_PER_RUN = env_int("MEMSITE_DISCOVERY_MAX_PER_RUN", 20000, 0, 1_000_000)
DISCOVERY_MAX_SEARCHED = env_int("MEMSITE_DISCOVERY_MAX_SEARCHED", 5000, 1, 10_000_000)

LOG_LEVEL = env_choice("MEMSITE_LOG_LEVEL", "INFO", ["DEBUG", "INFO", "WARNING", "ERROR"])
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # The MCP SDK logs every stateless request's end at INFO.
        "mcp.server.streamable_http": {"level": "WARNING"},
        # Task registration is logged by every process at start-up; jobs are logged by the worker.
        "procrastinate.blueprints": {"level": "WARNING"},
        "procrastinate.periodic": {"level": "WARNING"},
    },
}
