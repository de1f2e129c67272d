import io
import json

import pytest

from graph.models import Association
from memories.models import Memory
from memsite.errors import Invalid
from portability import services
from portability.records import MAX_LINE_BYTES
from tests.portability.conftest import imported

pytestmark = pytest.mark.django_db

HEADER = json.dumps({"kind": "header", "format": "memsite", "version": 1})


def memory(source_id, content, **fields):
    return json.dumps({"kind": "memory", "id": source_id, "content": content, **fields})


def link(source, target):
    return json.dumps({"kind": "association", "source": source, "target": target, "type": "RELATES_TO"})


LINES = [
    HEADER,  # 1
    memory("m1", "Good memory one."),  # 2
    memory("m2", "Wrong importance.", importance="high"),  # 3
    '{"kind": "memory", "id": "m3", "content": "A raw NUL \x00 byte."}',  # 4
    memory("m4", "x" * MAX_LINE_BYTES),  # 5
    json.dumps({"kind": "recipe", "id": "r1"}),  # 6
    memory("m5", "Too old.", created_at="0999-01-01T00:00:00Z"),  # 7
    memory("m1", "Same id again."),  # 8
    link("m1", "nowhere"),  # 9
    "",  # 10 (blank: ignored)
    memory("m6", "Good memory two."),  # 11
    link("m1", "m6"),  # 12
    "{not json",  # 13
    memory("m7", "Content\u0000escaped."),  # 14
]


def test_a_file_with_bad_lines_imports_the_good_ones_and_reports_each_bad_one_by_line(alice):
    summary = imported(alice, "\n".join(LINES) + "\n")

    reasons = {failure["line"]: failure["reason"] for failure in summary["failures"]}
    assert sorted(reasons) == [3, 4, 5, 6, 7, 8, 9, 13, 14]
    assert reasons[3] == "'importance' must be a number"
    assert reasons[4] == "Line is not UTF-8 text, or holds a NUL character"
    assert reasons[5] == f"Line exceeds the maximum of {MAX_LINE_BYTES} bytes"
    assert reasons[6].startswith("'kind' must be one of")
    assert reasons[7] == "'timestamp' must be between 1000-01-01 and 9000-12-31 (UTC)"
    assert reasons[8] == "Duplicate id 'm1': line 2 has it too"
    assert reasons[9] == "Association names memory 'nowhere', which this import has not stored"
    assert reasons[13] == "Line is not valid JSON"
    assert reasons[14] == "'content' contains characters that cannot be stored"
    assert summary["imported"] == 3
    assert summary["failed"] == 9
    assert sorted(Memory.objects.filter(owner=alice).values_list("content", flat=True)) == [
        "Good memory one.",
        "Good memory two.",
    ]
    assert Association.objects.filter(source__owner=alice).count() == 1


def test_a_file_without_the_header_is_refused_whole_and_nothing_is_kept(alice):
    with pytest.raises(Invalid, match="Line 1: The first line must be the header"):
        services.take_in(alice, io.BytesIO(memory("m1", "No header.").encode()))

    assert not alice.imports.exists()
