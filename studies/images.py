"""Images uploaded for image items: what a file is (by its first bytes, never its name or the
declared type) and how large it is, and storing it beside its item.

Accepted: PNG, JPEG, GIF and WebP, at most ``AGREEMENT_IMAGE_MAX_BYTES``. An image gives its
item a size when the item has none; an item with a size refuses an image of another size
(its regions were checked against that size).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse

from studies.exceptions import ApplicationError
from studies.models import Item, ItemImage


class ImageErrorCode:
    UNSUPPORTED_IMAGE = "unsupported_image"
    SIZE_CONFLICT = "size_conflict"
    TOO_LARGE = "image_too_large"


class ImageTooLargeError(ApplicationError):
    status_code = 413
    code = ImageErrorCode.TOO_LARGE


def max_bytes() -> int:
    return int(settings.AGREEMENT_IMAGE_MAX_BYTES)


def image_type(data: bytes) -> str | None:
    """The image's media type by its signature, or None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the first start-of-frame segment."""
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return width, height
        at += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8 " and len(data) >= 30:
        width = int.from_bytes(data[26:28], "little") & 0x3FFF
        height = int.from_bytes(data[28:30], "little") & 0x3FFF
        return width, height
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def image_size(data: bytes, media_type: str) -> tuple[int, int] | None:
    """The image's width and height in pixels, read from its header (None: unreadable)."""
    if media_type == "image/png" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if media_type == "image/gif" and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if media_type == "image/jpeg":
        return _jpeg_size(data)
    if media_type == "image/webp":
        return _webp_size(data)
    return None


@transaction.atomic
def item_image_set(*, item: Item, data: bytes) -> ItemImage:
    """Store ``data`` as the item's image (replacing any); give the item the image's size."""
    if len(data) > max_bytes():
        raise ImageTooLargeError(
            f"An image has at most {max_bytes() // (1024 * 1024)} MB; this one has more."
        )
    media_type = image_type(data)
    size = image_size(data, media_type) if media_type else None
    if media_type is None or size is None or min(size) <= 0:
        raise ValidationError(
            {
                "file": ValidationError(
                    "Not a PNG, JPEG, GIF or WebP image (read from its first bytes).",
                    code=ImageErrorCode.UNSUPPORTED_IMAGE,
                )
            }
        )
    width, height = size
    item = Item.objects.select_for_update(of=("self",)).get(pk=item.pk)
    if item.image_width is not None and (item.image_width, item.image_height) != (width, height):
        raise ValidationError(
            {
                "file": ValidationError(
                    f"The image is {width} × {height} pixels; the item is declared "
                    f"{item.image_width:g} × {item.image_height:g}.",
                    code=ImageErrorCode.SIZE_CONFLICT,
                )
            }
        )
    if item.image_width is None:
        Item.objects.filter(pk=item.pk).update(image_width=width, image_height=height)
    image, _ = ItemImage.objects.update_or_create(
        item=item, defaults={"content": data, "content_type": media_type}
    )
    return image


def item_image_delete(*, item: Item) -> None:
    ItemImage.objects.filter(item=item).delete()


def image_response(image: ItemImage) -> HttpResponse:
    """The image's bytes as their own type, never sniffed into another one, never run (a
    sandboxing CSP), cached by the member's browser only."""
    response = HttpResponse(bytes(image.content), content_type=image.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "sandbox; default-src 'none'"
    response["Cache-Control"] = "private, max-age=300"
    return response
