"""gunicorn's configuration for `make run` (Procfile): where to listen, from the validated settings.

The socket's peer is the client address uvicorn hands to Django: X-Forwarded-For is read by
memsite/addresses.py only from the proxies named in MEMSITE_TRUSTED_PROXIES, so uvicorn must not
rewrite the peer from that header itself (by default it believes any local connection).
"""

from uvicorn_worker import UvicornWorker as BaseUvicornWorker

from memsite import settings

host = f"[{settings.WEB_BIND}]" if ":" in settings.WEB_BIND else settings.WEB_BIND
bind = [f"{host}:{settings.WEB_PORT}"]
worker_class = "memsite.gunicorn_conf.UvicornWorker"


class UvicornWorker(BaseUvicornWorker):
    CONFIG_KWARGS = {**BaseUvicornWorker.CONFIG_KWARGS, "proxy_headers": False}
