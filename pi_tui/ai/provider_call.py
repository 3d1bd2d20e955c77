"""One provider request's lifetime, shared by the Chat Completions and Responses providers.

A request borrows a pooled HTTP connection (or opens its own), makes an SDK client with the request's key,
opens the response stream and reads it, every wait raced against the abort signal so an abort takes effect
at once; then it lets go of everything: the response always, the client only when it was not lent a pooled
connection (closing an SDK client closes the HTTP client it was given). A failure becomes the reply's error
text, the same for both APIs, so the retry and overflow classifiers read them alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, StopReason, ToolCall
from pi_tui.ai.openai_errors import describe_error, redact_failure
from pi_tui.ai.stream import StreamEvent, StreamOptions
from pi_tui.ai.warm_up import SDK_CLIENT_MODULE, sdk_imported
from pi_tui.config.key_secrets import header_credentials
from pi_tui.config.model_config import ModelConfig

ABORTED_MESSAGE = "Request was aborted."
NO_API_KEY = "no-api-key"
"""Sent when no key is configured: local servers ignore it; hosted ones answer 401."""
_CLOSE_GRACE_S = 1.0

T = TypeVar("T")
Failure = tuple[str, dict[str, Any] | None]


class CallAborted(Exception):
    """The abort signal fired while the call waited."""


def now_ms() -> int:
    return int(time.time() * 1000)


def make_client(
    model: ModelConfig, options: StreamOptions, http_client: Any = None, *, raw_events: bool = False
) -> Any:
    """A client for one request (over a pooled `http_client` when given); `raw_events`: stream events stay
    plain JSON (see `RawEventsOpenAI`)."""
    from pi_tui.ai.openai_client import PiOpenAI, RawEventsOpenAI

    extra: dict[str, Any] = {}
    if options.timeout_s is not None:
        extra["timeout"] = options.timeout_s
    if options.max_retries is not None:
        extra["max_retries"] = options.max_retries
    if http_client is not None:
        extra["http_client"] = http_client
    client_class = RawEventsOpenAI if raw_events else PiOpenAI
    client = client_class(
        api_key=options.api_key or NO_API_KEY,
        base_url=model.base_url,
        default_headers=model.headers or None,
        **extra,
    )
    client.request_clock = options.clock
    return client


END_OF_STREAM = object()
"""What `next_item` returns after the last item (a server may stream a `null`, so None cannot say it)."""


async def next_or_end(stream: Any) -> Any:
    try:
        return await stream.__anext__()
    except StopAsyncIteration:
        return END_OF_STREAM


class Race:
    """Awaits provider I/O against the abort signal, so an abort takes effect at once."""

    def __init__(self, signal: AbortSignal | None) -> None:
        self._waiter = asyncio.ensure_future(signal.wait()) if signal else None

    async def run(self, awaitable: Awaitable[T]) -> T:
        if self._waiter is None:
            return await awaitable
        task = asyncio.ensure_future(awaitable)
        try:
            await asyncio.wait((task, self._waiter), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.wait((task,), timeout=_CLOSE_GRACE_S)
        raise CallAborted

    def close(self) -> None:
        if self._waiter is not None:
            self._waiter.cancel()


async def close_quietly(stream: Any, client: Any) -> None:
    """Close the HTTP response and the client; a failure to close is not the reply's failure."""
    for resource in (stream, client):
        if resource is None:
            continue
        with contextlib.suppress(Exception):
            await asyncio.wait_for(resource.close(), _CLOSE_GRACE_S)


NAMELESS_TOOL_CALL = "Provider streamed a tool call without a name; the reply was not used"


def _checked_tool_calls(partial: AssistantMessage) -> str | None:
    """Tool calls as the loop may run them: a call delivered twice (a repeated id) is kept once, and one
    without a name is taken out of the reply, which then fails (a failed reply is never sent back, so the
    provider never sees a call it could not have made). Returns the failure text, if any."""
    seen: set[str] = set()
    kept: list[Any] = []
    dropped: list[dict[str, Any]] = []
    for block in partial.content:
        if isinstance(block, ToolCall):
            if not block.name:
                dropped.append({"id": block.id, "arguments": block.arguments})
                continue
            if block.id in seen:
                continue
            seen.add(block.id)
        kept.append(block)
    partial.content = kept
    if not dropped:
        return None
    diagnostic = {"type": "nameless_tool_calls", "timestamp": now_ms(), "calls": dropped}
    partial.diagnostics = [*(partial.diagnostics or []), diagnostic]
    return NAMELESS_TOOL_CALL


def final_event(
    partial: AssistantMessage,
    failure: tuple[str, dict[str, Any] | None] | None,
    aborted: bool,
    outcome: tuple[StopReason, str | None],
) -> StreamEvent:
    """The reply's terminal event: its failure if it had one, else the stop reason the server gave
    (`outcome`: an error stop reason comes with its text)."""
    nameless = _checked_tool_calls(partial)
    if failure is None and nameless is not None:
        failure = (nameless, None)
    if failure is not None:
        text, diagnostic = failure
        partial.stop_reason = "aborted" if aborted else "error"
        partial.error_message = text
        if diagnostic is not None:
            partial.diagnostics = [*(partial.diagnostics or []), diagnostic]
        return StreamEvent("error", partial, message=partial)
    stop_reason, error_message = outcome
    if stop_reason == "stop" and partial.tool_calls:
        stop_reason = "toolUse"  # some servers say "stop" after tool calls; the loop must run them
    partial.stop_reason = stop_reason
    if error_message is not None:
        partial.error_message = error_message
        return StreamEvent("error", partial, message=partial)
    return StreamEvent("done", partial, message=partial)


ClientFactory = Callable[[ModelConfig, StreamOptions], Any]
"""Makes an SDK client for a provider that draws no connections from the pool (the Messages API's SDK
has an HTTP stack of its own)."""
Describe = Callable[[BaseException, str | None], Failure]


class ProviderCall:
    """The resources of one request: see the module docstring."""

    def __init__(
        self,
        model: ModelConfig,
        options: StreamOptions,
        *,
        raw_events: bool = False,
        client_factory: ClientFactory | None = None,
        describe: Describe = describe_error,
        sdk_module: str = SDK_CLIENT_MODULE,
    ) -> None:
        self.model = model
        self.options = options
        self.race = Race(options.signal)
        self.failure: Failure | None = None
        self.aborted = False
        self.secrets = {options.api_key or "", *header_credentials(model.headers)}
        """What no failure text or diagnostic may hold: the key and the model's credential headers."""
        self._raw_events = raw_events
        self._client_factory = client_factory
        self._describe = describe
        self._sdk_module = sdk_module
        self._lease = contextlib.AsyncExitStack()
        self._pooled: Any = None
        self._client: Any = None
        self._stream: Any = None

    async def open(self, create: Callable[[Any], Awaitable[Any]]) -> None:
        """Make the request: `create(client)` returns the SDK call that opens the response stream."""
        signal = self.options.signal
        if signal is not None and signal.aborted:
            raise CallAborted
        await self.race.run(sdk_imported(self._sdk_module))
        if self._client_factory is not None:
            self._client = self._client_factory(self.model, self.options)
            self._stream = await self.race.run(create(self._client))
            return
        pool = self.options.http_pool
        if pool is not None:
            self._pooled = await self._lease.enter_async_context(
                pool.lease(self.model.provider, self.model.base_url)
            )
        self._client = make_client(self.model, self.options, self._pooled, raw_events=self._raw_events)
        self._stream = await self.race.run(create(self._client))

    async def next_item(self) -> Any:
        """The next streamed item, `END_OF_STREAM` after the last."""
        return await self.race.run(next_or_end(self._stream))

    def fail(self, error: Exception) -> None:
        """Record why the call ended early: an abort, or the error's text (the key cut out of it)."""
        signal = self.options.signal
        self.aborted = isinstance(error, CallAborted) or (signal is not None and signal.aborted)
        self.failure = (
            (ABORTED_MESSAGE, None)
            if self.aborted
            else self.redacted(self._describe(error, self.options.api_key))
        )

    def redacted(self, failure: Failure) -> Failure:
        """`failure` with every string of it free of this request's secrets."""
        return redact_failure(failure, self.secrets)

    async def close(self) -> None:
        self.race.close()
        await close_quietly(self._stream, self._client if self._pooled is None else None)
        await self._lease.aclose()

    async def reply(
        self,
        create: Callable[[Any], Awaitable[Any]],
        feed: Callable[[Any], list[StreamEvent]],
        finish: Callable[[], list[StreamEvent]],
        stopped: Callable[[], bool] = lambda: False,
    ) -> AsyncGenerator[StreamEvent]:
        """`events`, then what `finish()` (the assembler's close: blocks still open) adds once the stream
        is over. Iterate it inside `contextlib.aclosing` too."""
        async with contextlib.aclosing(self.events(create, feed, stopped)) as events:
            async for event in events:
                yield event
        for event in finish():
            yield event

    async def events(
        self,
        create: Callable[[Any], Awaitable[Any]],
        feed: Callable[[Any], list[StreamEvent]],
        stopped: Callable[[], bool] = lambda: False,
    ) -> AsyncGenerator[StreamEvent]:
        """Open the request with `create`, and yield what `feed` makes of each streamed item until the
        stream ends or `stopped()` (a failure the stream itself reported); a failure on the way is
        recorded (`fail`), never raised, and the call is closed in the end. Iterate it inside
        `contextlib.aclosing`, so an abandoned reply closes its stream at once."""
        try:
            await self.open(create)
            while (item := await self.next_item()) is not END_OF_STREAM:
                for event in feed(item):
                    yield event
                if stopped():
                    break
        except Exception as error:
            self.fail(error)
        finally:
            await self.close()
