"""An archive a server answered with (zip, tar, gzipped tar): its members become the result's
`files` (text, or base64 text for binary members), as in SCBench's API adapter; the download's
name comes from `Content-Disposition` (`filename*` preferred)."""

from __future__ import annotations

import base64
import io
import tarfile
import urllib.parse
import zipfile
from pathlib import PurePosixPath

ZIP_TYPES = ("application/zip", "application/x-zip-compressed")
# The answer is the submission's: an archive bomb must cost the case program neither its memory
# nor minutes. Past these, the remaining members are left out.
MAX_MEMBERS = 10_000
MAX_MEMBER_BYTES = 8 * 1024 * 1024
MAX_TOTAL_BYTES = 32 * 1024 * 1024  # unpacked, kept and skipped members together


def archive_members(raw: bytes, content_type: str) -> dict[str, str]:
    """Member path -> content; ValueError when the body is not such an archive."""
    found: dict[str, str] = {}
    budget = MAX_TOTAL_BYTES
    try:
        if any(kind in content_type.lower() for kind in ZIP_TYPES):
            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                for info in archive.infolist()[:MAX_MEMBERS]:
                    if not info.is_dir() and _safe(info.filename) and budget > 0:
                        with archive.open(info) as member:
                            data = member.read(min(MAX_MEMBER_BYTES, budget))
                        budget -= len(data)
                        found[info.filename] = _text(data)
        else:
            with tarfile.open(fileobj=io.BytesIO(raw), mode="r:*") as archive:
                for count, tar_info in enumerate(
                    archive
                ):  # streamed: stops at the budget, not at the end
                    budget -= tar_info.size
                    if count >= MAX_MEMBERS or budget < 0:
                        break
                    handle = (
                        archive.extractfile(tar_info)
                        if tar_info.isfile() and _safe(tar_info.name)
                        else None
                    )
                    if handle is not None:
                        found[tar_info.name] = _text(handle.read(MAX_MEMBER_BYTES))
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise ValueError(f"the {content_type} body is not a readable archive ({exc})") from None
    return found


def download_name(content_disposition: str | None) -> str | None:
    """`filename*` (RFC 5987: `charset''percent-encoded`) when given, else `filename`."""
    params: dict[str, str] = {}
    for part in (content_disposition or "").split(";")[1:]:
        key, sep, value = part.partition("=")
        if sep:
            params[key.strip().lower()] = value.strip().strip('"')
    encoded = params.get("filename*", "")
    if "''" in encoded:
        charset, _, value = encoded.partition("''")
        try:
            return urllib.parse.unquote(value, encoding=charset or "utf-8", errors="replace")
        except LookupError:  # an unknown charset
            return urllib.parse.unquote(value)
    return params.get("filename") or None


def _safe(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return base64.b64encode(data).decode()
