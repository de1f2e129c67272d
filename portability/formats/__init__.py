"""The files an import reads, each turned into memsite's own lines (portability/records.py).

A reader takes the path of the file and yields its lines in memsite's format, the header first:
memsite's own file as it is, a peer's file converted record by record.
"""

from portability.formats import mcp_memory_service, mem0, own

FORMATS = {
    "memsite": own.lines,
    "mcp-memory-service": mcp_memory_service.lines,
    "mem0": mem0.lines,
}
