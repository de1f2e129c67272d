"""The requests of GET /export and POST /import (memsite.api.specs)."""

from django.contrib.auth import get_user_model

from memories.api.recall_spec import tags_field
from memsite.api.specs import TIMESTAMP, Field, described
from memsite.errors import Forbidden, Invalid, NotFound
from memsite.validation import is_clean_text, parse_timestamp, parse_word_flag, parse_words
from portability.exports import ALL_KINDS
from portability.formats import FORMATS

OTHER_OWNER = "Only staff may export or import another owner's memories"


def parse_kinds(raws):
    kinds = parse_words(raws)
    unknown = [kind for kind in kinds if kind not in ALL_KINDS]
    if unknown:
        shown = unknown[0] if is_clean_text(unknown[0]) else repr(unknown[0])
        raise Invalid(f"Unknown kind '{shown[:40]}'. Must be among: {', '.join(ALL_KINDS)}")
    return tuple(kind for kind in ALL_KINDS if kind in kinds) or ALL_KINDS


def parse_format(value):
    if value in (None, ""):
        return "memsite"
    if value not in FORMATS:
        raise Invalid(f"'format' must be one of {', '.join(FORMATS)}")
    return value


def owner_for(user, name):
    """The owner a request acts for: the caller, or (staff only) the user named `name`."""
    if name in (None, "") or name == user.get_username():
        return user
    if not user.is_staff:
        raise Forbidden(OTHER_OWNER)
    owner = get_user_model().objects.filter(username=name).first()
    if owner is None:
        raise NotFound(f"No user named '{name[:150]}'")
    return owner


OWNER = Field(
    "owner", lambda value: value, {"type": "string", "description": "Staff: another owner's username."}
)
EXPORT = (
    OWNER,
    tags_field("tags"),
    Field(
        "since",
        lambda value: None if value in (None, "") else parse_timestamp(value, "since"),
        {**TIMESTAMP, "description": "Only memories created from then on."},
    ),
    Field(
        "include_archived",
        lambda value: parse_word_flag(value, "include_archived", default=True),
        {"type": "boolean", "default": True},
    ),
    Field(
        "kinds",
        parse_kinds,
        described({"type": "array", "items": {"type": "string", "enum": list(ALL_KINDS)}}, "Default: all."),
        many=True,
    ),
)
IMPORT = (
    OWNER,
    Field("format", parse_format, {"type": "string", "enum": list(FORMATS), "default": "memsite"}),
    Field(
        "dry_run",
        lambda value: parse_word_flag(value, "dry_run", default=False),
        {"type": "boolean", "default": False, "description": "Report what would happen; write nothing."},
    ),
)
