"""Bounds on what the SDK-backed summarizers read from a server, below the SDK: the HTTP body itself.

The official SDKs read an error body whole before they raise, and their SSE decoders keep a line until it ends,
however long (`SSEDecoder`: "without imposing a line or event size limit"). `capped_http_client(sdk)` is the
SDK's own default HTTP client (same connection limits, redirects, proxies from the environment) with a response
hook that wraps every body in a `CappedBody`:

* an error reply (HTTP status >= 400; also a redirect's body) is read up to `ERROR_BODY_MAX_BYTES` and then
  ended there: the SDK still raises its typed error for the status (a 429 stays retryable), with the start of the
  body as its message;
* a success reply (the event stream) fails with `ResponseTooLarge` past `RESPONSE_MAX_BYTES` in all, or past
  `LINE_MAX_BYTES` in one line (an SSE line that never ends);
* the request asks for no compression (`Accept-Encoding: identity`, in `NO_COMPRESSION`), so the counted bytes
  are the decoded ones: a success reply compressed anyway fails with `ResponseRefused` (a small compressed body
  can decode to gigabytes), an error reply compressed anyway is read as it came, undecoded.

`CappedBody.saw_done` tells whether the OpenAI end-of-stream line (`data: [DONE]`) went by: the SDK swallows it.
This module imports `httpx2` (the SDKs' HTTP library); it is imported only when an LLM summarizer is made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2

ERROR_BODY_MAX_BYTES = 64 * 1024
"""An error reply is read up to this (what is shown of it is cut much shorter: `base.ERROR_TEXT_MAX_CHARS`)."""
RESPONSE_MAX_BYTES = 64 * 1024 * 1024
"""A streamed reply may not be longer: room for a summary at `base.SUMMARY_MAX_CHARS` sent one token per event."""
LINE_MAX_BYTES = 8 * 1024 * 1024
"""Nor have a longer line: room for a whole `SUMMARY_MAX_CHARS` summary in one event, JSON-escaped."""
NO_COMPRESSION = {"Accept-Encoding": "identity"}
"""Sent with every request (see the module docstring)."""

_DONE_MARKERS = (b"\ndata: [DONE]", b"\rdata: [DONE]", b"\ndata:[DONE]", b"\rdata:[DONE]")


class ResponseTooLarge(Exception):
    """A streamed reply passed `RESPONSE_MAX_BYTES` in all or `LINE_MAX_BYTES` in one line."""


class ResponseRefused(Exception):
    """A success reply came compressed although the request accepted no compression."""


class CappedBody(httpx2.SyncByteStream):
    """A response body read under the caps of the module docstring."""

    def __init__(self, inner: httpx2.SyncByteStream, *, error: bool, refused: str | None = None) -> None:
        self.inner = inner
        self.error = error
        self.refused = refused
        self.read_bytes = 0
        self.line_bytes = 0
        self.saw_done = False
        self._tail = b"\n"

    def __iter__(self) -> Iterator[bytes]:
        if self.refused is not None:
            raise ResponseRefused(self.refused)
        for chunk in self.inner:
            if self.error:
                room = ERROR_BODY_MAX_BYTES - self.read_bytes
                self.read_bytes += len(chunk)
                if len(chunk) >= room:
                    if room > 0:
                        yield chunk[:room]
                    return  # the rest of an error body is never read
                yield chunk
                continue
            self.read_bytes += len(chunk)
            if self.read_bytes > RESPONSE_MAX_BYTES:
                raise ResponseTooLarge(f"the reply passed {RESPONSE_MAX_BYTES // (1024 * 1024)} MiB")
            end = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
            self.line_bytes = self.line_bytes + len(chunk) if end < 0 else len(chunk) - end - 1
            if self.line_bytes > LINE_MAX_BYTES:
                raise ResponseTooLarge(f"a line of the reply passed {LINE_MAX_BYTES // (1024 * 1024)} MiB")
            if not self.saw_done and (b"[DONE]" in chunk or b"[DONE]" in self._tail + chunk[:16]):
                window = self._tail + chunk
                self.saw_done = any(marker in window for marker in _DONE_MARKERS)
            self._tail = chunk[-16:]
            yield chunk

    def close(self) -> None:
        """Close the underlying body (and with it the connection, when it was not read to the end)."""
        self.inner.close()


def _cap_response(response: httpx2.Response) -> None:
    stream = response.stream
    if not isinstance(stream, httpx2.SyncByteStream):  # pragma: no cover - the summarizers use sync clients
        return
    error = response.status_code >= 300  # an error, or a redirect: a body only read to be shown (or dropped)
    encoding = response.headers.get("content-encoding", "").strip().lower()
    refused = None
    if encoding not in ("", "identity"):
        if error:
            del response.headers["content-encoding"]
        else:
            refused = f"the reply is compressed (Content-Encoding: {encoding[:40]}) although none was accepted"
    response.stream = CappedBody(stream, error=error, refused=refused)


def capped_http_client(sdk: Any) -> Any:
    """The SDK's default HTTP client (`sdk.DefaultHttpxClient`) with every response body capped."""
    return sdk.DefaultHttpxClient(event_hooks={"response": [_cap_response]})


def capped_body(sdk_stream: Any) -> CappedBody | None:
    """The `CappedBody` under an SDK stream object (its `response.stream`), if any."""
    body = getattr(getattr(sdk_stream, "response", None), "stream", None)
    return body if isinstance(body, CappedBody) else None
