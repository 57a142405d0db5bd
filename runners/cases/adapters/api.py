"""The API adapter: HTTP requests to the submission's server (started per group, see server.py).

A dict or list body is sent as JSON (with a JSON Content-Type unless the case gives one), bytes
as they are, anything else as text. The response's status, headers (names lower-cased) and
body come back: the body parsed as JSON when `response_is_json` (text when it is not JSON),
else text; a body that is not UTF-8 comes back as `{content_b64, encoding, size, content_type}`, and
an archive (zip, tar) also with `is_archive` and its download `filename`, its members in `files`.
"""

from __future__ import annotations

import base64
import http.client
import json
import time
import urllib.parse
from typing import Any

from ..files import collect_tracked
from ..model import APICase, APIResult, BaseCase
from .archive import archive_members, download_name
from .deadline import DeadlineConnection
from .server import ServerAdapter

MAX_BODY = 16 * 1024 * 1024
ARCHIVE_TYPES = (
    "application/zip",
    "application/x-zip-compressed",
    "application/x-tar",
    "application/tar",
    "application/gzip",
    "application/x-gzip",
    "application/x-tar+gzip",
    "application/x-compressed-tar",
)


class APIAdapter(ServerAdapter):
    last_error: str | None = None  # why the last case's request got no answer

    def on_failure(self, case: BaseCase) -> str | None:
        if not self.last_error:
            return None
        died_now = f"during case {case.id!r}" in self.exit_note
        return (
            "the request got no answer: "
            f"{self.last_error}{self.output_tail(600) if died_now else ''}"
        )

    def run_case(self, case: BaseCase) -> APIResult:
        assert isinstance(case, APICase)
        self.last_error = None
        ids = {
            "id": case.id,
            "group": case.group,
            "group_type": case.group_type,
            "method": case.method,
        }
        if self.failure:
            return APIResult(**ids, status_code=-1, stderr=self.failure, adapter_error=True)
        if self.exited():  # it died during an earlier case: nothing answers any more
            self.last_error = self.exit_note
            return APIResult(
                **ids,
                status_code=-1,
                stderr=f"{self.exit_note}{self.output_tail()}",
                resource_path=f"http://{self.host}:{self.port}{case.path or '/'}",
            )
        target = case.path or "/"
        query = case.get_query_params()
        if query:
            target += ("&" if "?" in target else "?") + urllib.parse.urlencode(
                {k: _query_value(v) for k, v in query.items()}
            )
        headers = dict(case.headers)
        body = _encode_body(case.body, headers)
        url = f"http://{self.host}:{self.port}{target}"
        timeout = self.timeout_for(case)
        started = time.monotonic()
        error, timed_out, attempts = "", False, 0
        for attempt in range(case.retries + 1):
            attempts = attempt
            # The timeout bounds the whole request (status, headers and body), not each read:
            # a server trickling its answer byte by byte is cut off at the deadline.
            conn = DeadlineConnection(self.host, self.port, deadline=time.monotonic() + timeout)
            try:
                conn.request(case.method.upper(), target, body=body, headers=headers)
                response = conn.getresponse()
                raw = response.read(MAX_BODY + 1)
                status, got_headers = (
                    response.status,
                    {k.lower(): v for k, v in response.getheaders()},
                )
                break
            except TimeoutError:
                error, timed_out = f"no answer within {timeout:g} s", True
            except (OSError, http.client.HTTPException) as exc:
                error = f"{type(exc).__name__}: {exc}"
            finally:
                conn.close()
        else:
            if self.exited(during=case.id):
                error = f"{error}; {self.exit_note}"
            self.last_error = error
            return APIResult(
                **ids,
                status_code=-1,
                stderr=f"{error}{self.output_tail()}",
                timed_out=timed_out,
                retries=attempts + 1,
                resource_path=url,
                elapsed=round(time.monotonic() - started, 6),
                files=collect_tracked(self.settings.workspace, self.tracked(case)),
            )
        output, binary = _decode(raw, got_headers, self.config.response_is_json)
        files = collect_tracked(self.settings.workspace, self.tracked(case))
        stderr = None
        if binary.get("is_archive"):  # its members are files of the result, as in SCBench
            try:
                files.update(archive_members(raw[:MAX_BODY], binary["content_type"]))
            except ValueError as exc:
                stderr = str(exc)
        return APIResult(
            **ids,
            status_code=status,
            output=output,
            headers=got_headers,
            resource_path=url,
            stderr=stderr,
            retries=attempts,
            timed_out=timed_out,
            elapsed=round(time.monotonic() - started, 6),
            files=files,
            binary_response_base64=binary.get("content_b64"),
            binary_response_size=binary.get("size"),
            binary_response_filename=binary.get("filename"),
        )


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _encode_body(body: Any, headers: dict[str, str]) -> bytes | None:
    names = {k.lower(): k for k in headers}
    content_type = headers.get(names.get("content-type", ""), "")
    if body is None:
        return None
    if any(kind in content_type.lower() for kind in ARCHIVE_TYPES):
        return body if isinstance(body, bytes) else base64.b64decode(str(body))
    if isinstance(body, (dict, list)):
        if not content_type:
            headers["Content-Type"] = "application/json"
        return json.dumps(body).encode()
    if isinstance(body, bytes):
        return body
    return str(body).encode()


def _decode(raw: bytes, headers: dict[str, str], as_json: bool) -> tuple[Any, dict[str, Any]]:
    content_type = headers.get("content-type", "")
    archive = any(kind in content_type.lower() for kind in ARCHIVE_TYPES)
    try:
        if archive:
            raise UnicodeDecodeError("utf-8", raw, 0, 1, "archive")
        text = raw[:MAX_BODY].decode("utf-8")
    except UnicodeDecodeError:
        binary: dict[str, Any] = {
            "content_b64": base64.b64encode(raw[:MAX_BODY]).decode(),
            "encoding": "base64",
            "size": len(raw),
            "content_type": content_type,
        }
        if archive:
            binary["is_archive"] = True
            name = download_name(headers.get("content-disposition"))
            if name:
                binary["filename"] = name
        return binary, binary
    if as_json:
        try:
            return json.loads(text), {}
        except ValueError:
            return text, {}
    return text, {}
