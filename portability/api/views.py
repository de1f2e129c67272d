"""GET /export streams an owner's data; POST /import takes a file in and queues its import."""

import zlib

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import FileUploadParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite.api.jobs import JobAcceptedSerializer, accepted
from memsite.api.specs import parameters, validate
from memsite.errors import Invalid, NotFound
from portability import exports, services
from portability.api import specs
from portability.models import ImportRun

CONTENT_TYPE = "application/x-ndjson"
COPY_CHUNK = 1024 * 1024


def _gzipped(chunks):
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    for chunk in chunks:
        data = compressor.compress(chunk.encode("utf-8"))
        if data:
            yield data
    yield compressor.flush()


def _wants_gzip(request):
    accepted_codings = request.META.get("HTTP_ACCEPT_ENCODING", "")
    return any(part.split(";")[0].strip() == "gzip" for part in accepted_codings.split(","))


class ExportView(APIView):
    # 403: another owner's data without staff rights; 404: no user of that name.
    error_statuses = {"GET": (403, 404)}

    @extend_schema(
        summary="Export memories as JSON Lines",
        description="Streams the caller's data (staff: any owner's) in memsite's format "
        "(docs/export-format.schema.json): a header line, then memories, associations, findings, "
        "boosts and assessments. Gzip-compressed when the request accepts gzip. Embeddings are not "
        "exported; an import computes them again.",
        parameters=parameters(specs.EXPORT),
        responses={(200, CONTENT_TYPE): OpenApiTypes.STR},
    )
    def get(self, request):
        options = validate(specs.EXPORT, request.query_params)
        owner = specs.owner_for(request.user, options.pop("owner"))
        lines = exports.in_chunks(exports.export_lines(owner, **options))
        gzip = _wants_gzip(request)
        response = StreamingHttpResponse(_gzipped(lines) if gzip else lines, content_type=CONTENT_TYPE)
        if gzip:
            response["Content-Encoding"] = "gzip"
        response["Vary"] = "Accept-Encoding"
        response["Content-Disposition"] = f'attachment; filename="memsite-{owner.get_username()}.jsonl"'
        return response


def _chunks(request):
    """The chunks of the uploaded file (multipart `file`) or of the raw body."""
    if not request.content_type.startswith("multipart/form-data"):
        return iter(lambda: request._request.read(COPY_CHUNK), b"")
    upload = request.FILES.get("file")
    if upload is None:
        raise Invalid("Send the file in the multipart field 'file'")
    return upload.chunks(COPY_CHUNK)


class ImportView(APIView):
    error_statuses = {"POST": (403, 404)}
    parser_classes = [MultiPartParser, FileUploadParser]

    @extend_schema(
        summary="Import a file of memories",
        description="A multipart upload (field `file`, with `format`) or a JSON Lines body (`format` "
        "in the query string), up to MEMSITE_IMPORT_MAX_BYTES; `dry_run` reports what the import "
        "would do and writes nothing. Answers 202 with the job; "
        "GET /import/<id> (or /api/jobs/<job_id>, under `progress`) shows the counts so far, then "
        "the result: imported, skipped and failed, in all and per kind (`counts`), with the first "
        "100 failures by line number.",
        parameters=parameters(specs.IMPORT),
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
            },
            CONTENT_TYPE: OpenApiTypes.STR,
        },
        responses={202: JobAcceptedSerializer},
    )
    def post(self, request):
        params = request.query_params.copy()
        if request.content_type.startswith("multipart/form-data"):
            for name in ("format", "owner", "dry_run"):
                if request.POST.get(name):
                    params[name] = request.POST[name]
        options = validate(specs.IMPORT, params)
        owner = specs.owner_for(request.user, options["owner"])
        run, job_id = services.import_upload(owner, _chunks(request), options["format"], options["dry_run"])
        return accepted(job_id, import_id=run.pk)


class ImportDetailView(APIView):
    @extend_schema(
        summary="One import",
        description="Where an import stands: lines done of all, imported, skipped, failed and the "
        "first 100 failures (line and reason). Your own imports only (staff: every import).",
        parameters=[OpenApiParameter("import_id", int, OpenApiParameter.PATH)],
        responses=inline_serializer(
            "ImportResponse", {"status": serializers.CharField(), "import": serializers.DictField()}
        ),
    )
    def get(self, request, import_id):
        runs = (
            ImportRun.objects.all() if request.user.is_staff else ImportRun.objects.filter(owner=request.user)
        )
        run = runs.filter(pk=import_id).first()
        if run is None:
            raise NotFound("Import not found")
        return Response({"status": "success", "import": run.summary()})
