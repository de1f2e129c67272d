"""What the tools advertise: argument schemas, annotations and output schemas.

Arguments are advertised with their JSON schema but checked by the REST request specs, so a wrong
value gets the REST API's message; the SDK only passes them through.
"""

from typing import Annotated, Any, NotRequired, TypedDict

from jsonschema import Draft202012Validator
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import WithJsonSchema

from memsite.api.specs import body_schema


def arg(description, **schema):
    """An argument advertised with `schema`, checked by the REST request specs."""
    return Annotated[Any, WithJsonSchema({**schema, "description": description})]


def spec_arg(spec, name, description, partial=False):
    """An argument passed to the REST spec `spec` as its field `name`: advertised with that
    field's own schema (without its defaults when the tool, like PATCH, changes only what is given)."""
    schema = body_schema(spec, partial)["properties"][name]
    return arg(description, **{key: value for key, value in schema.items() if key != "description"})


SCHEMA_RULES = {"additionalProperties", "required", "type"}


class StrictTool(Tool):
    """A tool whose arguments follow its advertised schema: no argument it does not take
    (`additionalProperties: false`), the required ones given, each of the type it advertises; a
    call breaking that is refused naming the argument before the tool runs (the SDK's own check
    ignores unknown arguments and takes any value). Numbers, ranges and choices are checked by the
    REST specs, with their messages."""

    def model_post_init(self, context):
        super().model_post_init(context)
        self.parameters["additionalProperties"] = False

    async def run(self, arguments, context, convert_result=False):
        given = {name: value for name, value in (arguments or {}).items() if value is not None}
        errors = [
            error
            for error in Draft202012Validator(self.parameters).iter_errors(given)
            if error.validator in SCHEMA_RULES
            and len(error.absolute_path) <= 1
            and (error.validator != "type" or error.validator_value == "string")
        ]
        if errors:
            error = min(errors, key=lambda found: (list(found.absolute_path), found.validator))
            where = ".".join(str(part) for part in error.absolute_path)
            raise ToolError(f"{self.name}: {f'{where}: ' if where else ''}{error.message[:300]}")
        return await super().run(arguments, context, convert_result)


def annotations(title, read_only=False, destructive=False, idempotent=True):
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


MemoryId = arg("A memory's UUID, as returned by store_memory or recall_memory.", type="string", format="uuid")
Object = dict[str, Any]


class MemoryAnswer(TypedDict):
    status: str
    memory_id: str
    memory: Object


class ArchiveAnswer(MemoryAnswer):
    archived: bool
    changed: bool


class StoreAnswer(TypedDict):
    status: str
    memory_id: NotRequired[str]
    duplicate: NotRequired[bool]
    quality_score: NotRequired[float]
    memory: NotRequired[Object]
    stored_count: NotRequired[int]
    duplicate_count: NotRequired[int]
    failed_count: NotRequired[int]
    succeeded: NotRequired[list[Object]]
    failed: NotRequired[list[Object]]
    query_time_ms: float


class RecallAnswer(TypedDict):
    status: str
    query: str
    results: list[Object]
    count: int
    query_time_ms: float
    expansion: Object


class ByTagAnswer(TypedDict):
    status: str
    tags: list[str]
    count: int
    limit: int
    offset: int
    memories: list[Object]


class DeleteAnswer(TypedDict):
    status: str
    memory_id: str


class AssociateAnswer(TypedDict):
    success: bool
    message: str
    status: NotRequired[str]
    created_count: NotRequired[int]
    failed_count: NotRequired[int]
    succeeded: NotRequired[list[Object]]
    failed: NotRequired[list[Object]]
    summary: NotRequired[str]
    relation_type: NotRequired[str]
    strength: NotRequired[float]


class MemoryQualityAnswer(TypedDict):
    memory_id: str
    content: str
    quality: Object
    provenance: Object
    boost: Object
    assessments: list[Object]
    boosts: list[Object]
    inconsistencies: list[Object]


class ReportAnswer(TypedDict):
    generated_at: str
    stats: Object
    dimension_scores: Object
    inconsistency_counts: Object
    top_issues: list[Object]
    recommendations: list[Object]


class InconsistencyListAnswer(TypedDict):
    count: int
    limit: int
    offset: int
    results: list[Object]


class InconsistencyAnswer(TypedDict):
    id: int
    type: str
    status: str
    severity: float
    description: str
    resolution: str
    detected_at: str
    resolved_at: str | None
    resolved_by: str | None
    memory1: Object
    memory2: Object | None


class HealthAnswer(TypedDict):
    status: str
    database: str
    pgvector: str
    age: str
    version: str
