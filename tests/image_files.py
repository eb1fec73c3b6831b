"""Small image files written byte by byte from their formats' specifications, for the tests
of uploaded images."""

from __future__ import annotations

import struct
import zlib


def png(width: int, height: int) -> bytes:
    """A valid grey PNG of that size (PNG specification: signature, IHDR, IDAT, IEND)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\x80" * width for _ in range(height)))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


GIF_7X5 = b"GIF89a" + struct.pack("<HH", 7, 5) + b"\x00\x00\x00" + b";"
# Start of image, an APP0 segment of 16 bytes, then a baseline start of frame: 8 bits,
# height 480, width 640 (ITU T.81, B.2.2).
JPEG_640X480 = (
    b"\xff\xd8"
    + b"\xff\xe0"
    + struct.pack(">H", 16)
    + b"JFIF\x00"
    + b"\x00" * 9
    + b"\xff\xc0"
    + struct.pack(">HBHHB", 17, 8, 480, 640, 3)
    + b"\x00" * 9
)
