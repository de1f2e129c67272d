"""memsite's own JSON Lines: read as they are, gzip-compressed or not."""

import gzip

GZIP_MAGIC = b"\x1f\x8b"


def lines(path):
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    with (gzip.open if compressed else open)(path, "rb") as stream:
        yield from stream
