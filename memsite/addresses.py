"""The address a request came from, and the one `make run` serves on.

A request's client is the socket's peer, unless that peer is a proxy the operator trusts.

`X-Forwarded-For` is any client's to write, so it is read only when the request arrived from a
proxy the operator named in MEMSITE_TRUSTED_PROXIES; then the header is read from its right end
(the part the nearest proxy appended), skipping further trusted proxies, and the first address
that is not one of them is the client. The login lockout (django-axes, AXES_CLIENT_IP_CALLABLE)
and the request limits both count by this address.
"""

import ipaddress

from django.conf import settings


def _address(text):
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address):
    return any(address in network for network in settings.TRUSTED_PROXIES)


def client_address(request):
    """The client's address as a string (the socket's peer unless a trusted proxy forwarded it)."""
    peer = request.META.get("REMOTE_ADDR", "")
    address = _address(peer)
    if address is None or not _trusted(address):
        return peer
    for hop in reversed(request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        forwarded = _address(hop)
        if forwarded is None:
            return str(address)
        address = forwarded
        if not _trusted(address):
            return str(address)
    return str(address)


def web_address():
    """The address `make run` serves on, as a browser would type it (MEMSITE_BIND, MEMSITE_PORT)."""
    host = "127.0.0.1" if settings.WEB_BIND in ("0.0.0.0", "::") else settings.WEB_BIND
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.WEB_PORT}"
