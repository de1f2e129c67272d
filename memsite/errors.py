"""Domain errors, raised by services, queries and request parsing in every app.

Each carries the exact message to show and the HTTP status it stands for. The API maps them to the
error envelope in one place (`memsite.api.exceptions`); the dashboard and the admin show their
message. Nothing below the API layer raises an HTTP exception.
"""


class DomainError(Exception):
    status = 400

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class Invalid(DomainError):
    """The request or a value in it breaks a rule."""

    status = 400


class Forbidden(DomainError):
    """The caller may not do this (another owner's data without staff rights)."""

    status = 403


class NotFound(DomainError):
    """The object does not exist, or belongs to somebody else."""

    status = 404


class Conflict(DomainError):
    """The change collides with the current state (a duplicate, a run already going, …)."""

    status = 409


class Failed(DomainError):
    """A write that should have worked failed; the message says which."""

    status = 500


class Unavailable(DomainError):
    """A part the request needs (the graph, the database) cannot be reached."""

    status = 503
