"""Request specs: each endpoint's request written once, as data, checked by one validator and shown
in the OpenAPI document from that same definition (healthchecks keeps its request schemas as data
the same way, in `hc/api/schemas.py`).

A spec is an ordered tuple of steps. A `Field` reads one key with its one reader, a function of the
raw value (None when absent; every value of a repeated query parameter with `many`) that returns
the clean value or raises `Invalid` with the exact message, and carries the schema fragment the
document shows. A `Rule` joins fields (both ids given, start not after end): it sees the raw data
and the values read so far. `validate` runs the steps in order and the first failure is the answer,
so a spec's order is the order of the checks (AutoMem's, where the API follows AutoMem).

Readers are the rules of memsite.validation and of each app's specs module, with AutoMem's
messages; where an endpoint has always answered with DRF's messages (quality, consolidation), a
field is read by a DRF serializer field instead (`drf`), and shown with drf-spectacular's schema.
"""

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.fields import SkipField

from memsite.api.exceptions import flatten_errors
from memsite.errors import Invalid
from memsite.validation import JSON_BODY_REQUIRED, parse_choice, parse_int, parse_number, parse_word_flag

# A date-time within the accepted range (memsite.validation.EARLIEST–LATEST), as a pattern.
TIMESTAMP = {
    "type": "string",
    "format": "date-time",
    "pattern": r"^(1\d{3}|[2-8]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])"
    r"T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-](0\d|1[0-3]):[0-5]\d)$",
}


@dataclass(frozen=True)
class Field:
    name: str
    read: Callable
    schema: dict
    required: bool = False
    key: str | None = None
    many: bool = False

    def apply(self, data, values, partial):
        if partial and self.name not in data:
            return
        raw = data.getlist(self.name) if self.many else data.get(self.name)
        values[self.key or self.name] = self.read(raw)

    def properties(self, partial):
        schema = self.schema
        if partial:
            schema = {name: value for name, value in schema.items() if name != "default"}
        return {self.name: schema}


@dataclass(frozen=True)
class Rule:
    check: Callable
    schema: dict = field(default_factory=dict)
    name = None
    required = many = False

    def apply(self, data, values, partial):
        self.check(data, values)

    def properties(self, partial):
        return self.schema


def validate(spec, data, partial=False):
    """The clean values of `data` (a JSON object or a QueryDict); with `partial` (PATCH) only the
    keys present are read. A body that is not an object is a 400 "JSON body is required"."""
    if not hasattr(data, "get"):
        raise Invalid(JSON_BODY_REQUIRED)
    values = {}
    for step in spec:
        step.apply(data, values, partial)
    return values


def known_names(spec):
    """Every key a spec reads (or accepts and ignores)."""
    names = set()
    for step in spec:
        names.update(step.properties(partial=False))
    return names


def strict(spec, ignored=(), ignored_why=""):
    """`spec` that also refuses, after every other check, a key it does not read: a 400 naming it.
    `ignored` keys are accepted and ignored on purpose (sent by AutoMem's clients; `ignored_why`
    says why, in the OpenAPI document too)."""
    schema = dict.fromkeys(ignored, {"description": f"Accepted and ignored: {ignored_why}"})
    known = known_names(spec) | set(ignored)

    return (*spec, Rule(lambda data, values: refuse_unknown(data, known), schema))


def refuse_unknown(data, known):
    """A 400 naming the keys of `data` (a JSON object or a QueryDict) not in `known`."""
    unknown = sorted(str(name) for name in data if name not in known)
    if unknown:
        names = ", ".join(f"'{name[:60]}'" for name in unknown[:10])
        raise Invalid(f"Unknown {'field' if len(unknown) == 1 else 'fields'}: {names}")


def with_readers(spec, **readers):
    """`spec` with some fields read differently (PATCH's stricter reading of a few keys)."""
    return tuple(replace(step, read=readers[step.name]) if step.name in readers else step for step in spec)


def body_schema(spec, partial=False):
    """The JSON schema of a request body (a partial one has no defaults and no required keys)."""
    properties = {}
    for step in spec:
        properties.update(step.properties(partial))
    schema = {"type": "object", "properties": properties}
    required = [] if partial else [step.name for step in spec if step.required]
    if required:
        schema["required"] = required
    return schema


def request_body(spec, partial=False):
    """What `extend_schema(request=...)` takes for a JSON body read with `spec`."""
    return {"application/json": body_schema(spec, partial)}


def parameters(spec):
    """What `extend_schema(parameters=...)` takes for a query string read with `spec`."""
    found = []
    for step in spec:
        for name, schema in step.properties(partial=False).items():
            schema = dict(schema)
            description = schema.pop("description", "")
            explode = False if step.many else None
            found.append(
                OpenApiParameter(
                    name, schema, required=step.required, description=description, explode=explode
                )
            )
    return found


def integer(name, default, lo, hi, description=""):
    """A query-string integer within lo–hi."""
    schema = {"type": "integer", "minimum": lo, "maximum": hi, "default": default}
    return Field(name, lambda raw: parse_int(raw, name, default, lo, hi), described(schema, description))


def unit(name, default, description=""):
    """A query-string number within 0–1."""
    schema = {"type": "number", "minimum": 0, "maximum": 1}
    if default is not None:
        schema["default"] = default
    return Field(name, lambda raw: parse_number(raw, name, default), described(schema, description))


def flag(name, description=""):
    """A query-string flag (true/false, yes/no, on/off, 1/0), false when absent."""
    return Field(name, lambda raw: parse_word_flag(raw, name), described({"type": "boolean"}, description))


def choice(name, choices, description=""):
    """One of `choices` (the first is the default), case-insensitive."""
    schema = {"type": "string", "enum": choices, "default": choices[0]}
    return Field(
        name, lambda raw: parse_choice(raw, name, choices[0], choices), described(schema, description)
    )


def described(schema, description):
    return {**schema, "description": description} if description else schema


@dataclass(frozen=True)
class DrfField(Field):
    """A field read exactly as a DRF serializer would read it, with DRF's messages ("'days': A valid
    integer is required."): where the API has always answered with them."""

    def apply(self, data, values, partial):
        value = self.read.get_value(data)
        try:
            values[self.name] = self.read.run_validation(value)
        except SkipField:
            pass
        except serializers.ValidationError as error:
            raise Invalid(flatten_errors(error.detail, self.name)) from None


def drf(name, drf_field):
    """A spec field read by a DRF serializer field, shown with drf-spectacular's schema of it."""
    drf_field.bind(name, serializers.Serializer())
    mapper = AutoSchema()  # as drf-spectacular maps a serializer's field (its own methods)
    schema = mapper._map_serializer_field(drf_field, "request")
    mapper._insert_field_validators(drf_field, schema)
    return DrfField(name, drf_field, schema, required=drf_field.required)
