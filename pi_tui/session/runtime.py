"""`AgentSessionRuntime`: owns the current `AgentSession` and replaces it (pi's session runtime).

Every replacement (new, resume/switch, fork, clone, import) follows one path: the old session is
aborted and left, the target store is opened (`store_opening`), the services of the *target's* cwd are
built (its settings, AGENTS.md, skills, templates), a fresh `AgentSession` is made from them, and
listeners registered with `on_session_replaced` are told so a front end can rebind. Subscribers added with
`subscribe` follow the runtime from one session to the next.

The runtime owns the provider's HTTP connection pool: every session it makes shares it (a replaced
session's connections serve the next one), a session's `reload()` resets it, and `dispose()` closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from pi_tui.agent.listeners import Listeners
from pi_tui.agent.maybe_await import maybe_await
from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.messages import ThinkingLevel, UserMessage
from pi_tui.ai.stream import StreamFunction
from pi_tui.config.anthropic_catalog import CATALOG_WINDOW
from pi_tui.config.approval_mode import ApprovalSetting
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import load_registry, resolve_model
from pi_tui.config.paths import ensure_private_dir, session_dir_for_cwd
from pi_tui.session.agent_session import AgentSession, SessionConfig, SessionListener
from pi_tui.session.services import AgentSessionServices
from pi_tui.session.session_setup import checkpoints_for
from pi_tui.session.store_opening import SessionOpenError, new_store, open_session_file
from pi_tui.session.tree_navigation import NavigationResult, content_text
from pi_tui.session_file.entries import CURRENT_SESSION_VERSION, MessageEntry, SessionHeader
from pi_tui.session_file.forking import session_file_name
from pi_tui.session_file.ids import iso_timestamp, uuid7
from pi_tui.session_file.migrations import replace_file_atomically
from pi_tui.session_file.store import SessionError, SessionStore

ReplaceReason: TypeAlias = Literal["new", "resume", "fork"]
ServicesFactory: TypeAlias = Callable[[Path], AgentSessionServices]
ReplacedListener: TypeAlias = Callable[[AgentSession, ReplaceReason], Awaitable[None] | None]
NOTHING_TO_CLONE = "Nothing to clone yet"


def _services_for(cwd: Path) -> AgentSessionServices:
    return AgentSessionServices.for_cwd(cwd)


@dataclass(frozen=True)
class RuntimeOptions:
    """What stays the same across sessions: the model chosen on the command line, tools, the provider.

    `thinking_level` applies to the first session only; later sessions use their recorded level.
    `services_factory` builds the services of a cwd (tests pass one with private homes).
    """

    model: ModelConfig | None
    api_key: str | None = None
    thinking_level: ThinkingLevel | None = None
    tool_names: Sequence[str] | None = None
    stream_fn: StreamFunction | None = None
    services_factory: ServicesFactory = _services_for
    approve: ApprovalSetting = False
    """`--approve` (true) or `--approval MODE`: every session of this runtime starts so
    (`approval_mode.session_mode`)."""


class AgentSessionRuntime:
    """The current session and the operations that swap it; see the module docstring."""

    def __init__(
        self, store: SessionStore, options: RuntimeOptions, services: AgentSessionServices | None = None
    ) -> None:
        self._options = options
        self._model = options.model
        self._api_key = options.api_key
        self._subscribers: list[SessionListener] = []
        self._unsubscribe: list[Callable[[], None]] = []
        self._replaced_listeners: Listeners[ReplacedListener] = Listeners()
        self.http_pool = HttpPool()
        self.services = services or options.services_factory(Path(store.cwd))
        self.session = self._make_session(store, self.services, options.thinking_level)

    @property
    def uses_openai_sdk(self) -> bool:
        """The sessions call the OpenAI-compatible provider (no scripted or test provider was given)."""
        return self._options.stream_fn is None

    # --- listeners ------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Receive the events of the current session and of every later one."""
        self._subscribers.append(listener)
        self._unsubscribe.append(self.session.subscribe(listener))

        def unsubscribe() -> None:
            if listener in self._subscribers:
                self._subscribers.remove(listener)
            self._rebind_subscribers()

        return unsubscribe

    def on_session_replaced(self, listener: ReplacedListener) -> Callable[[], None]:
        """Called with the new session after every replacement (the front end's rebind hook)."""
        return self._replaced_listeners.add(listener)

    def _rebind_subscribers(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = [self.session.subscribe(listener) for listener in self._subscribers]

    # --- replacement ----------------------------------------------------------------------------

    def _make_session(
        self, store: SessionStore, services: AgentSessionServices, thinking: ThinkingLevel | None
    ) -> AgentSession:
        cwd = Path(store.cwd)
        factory = self._options.services_factory
        return AgentSession(
            SessionConfig(
                store=store,
                resources=services.resources,
                model=self._model,
                api_key=self._api_key,
                thinking_level=thinking,
                tool_names=self._options.tool_names,
                stream_fn=self._options.stream_fn,
                reload_resources=lambda: factory(cwd).resources,
                approve=self._options.approve,
                http_pool=self.http_pool,
            )
        )

    async def _replace(self, store: SessionStore, reason: ReplaceReason) -> AgentSession:
        old = self.session
        old.abort()
        await old.wait_for_idle()
        # Fallback or /model may have changed the model; the next session keeps using it, unless it
        # resumes a session whose own model is configured and has a key, as pi does.
        self._model, self._api_key = old.model, old.api_key
        if reason == "resume":
            restored = await asyncio.to_thread(recorded_model, store)
            if restored is not None:
                self._model, self._api_key = restored
        # Always the target's own cwd: its settings, context files and skills, freshly read.
        self.services = await asyncio.to_thread(self._options.services_factory, Path(store.cwd))
        self.session = self._make_session(store, self.services, None)
        self._rebind_subscribers()
        for listener in self._replaced_listeners:
            await maybe_await(listener(self.session, reason))
        return self.session

    @property
    def _session_dir(self) -> Path:
        path = self.session.store.path
        return path.parent if path is not None else session_dir_for_cwd(self.session.store.cwd)

    async def new_session(self) -> AgentSession:
        """`/new`: an empty session in the same session folder (in memory if the current one is)."""
        current = self.session.store
        store = new_store(current.cwd, self._session_dir if current.path is not None else None)
        return await self._replace(store, "new")

    async def switch_session(self, path: Path, *, cwd_override: str | None = None) -> AgentSession:
        """`/resume`: open `path` with the services of its own cwd.

        When that cwd is gone the session continues in `cwd_override`; without one this raises
        `SessionCwdMissingError`.
        """
        store = await asyncio.to_thread(self._open_for_switch, path, cwd_override)
        return await self._replace(store, "resume")

    def _open_for_switch(self, path: Path, cwd_override: str | None) -> SessionStore:
        if not path.is_file():
            raise SessionOpenError(f"File not found: {path}")
        here = cwd_override is not None
        return open_session_file(path, cwd_override or str(self.services.cwd), here=here)

    async def fork(self, entry_id: str) -> str:
        """`/fork`: a new session holding the path up to just before user message `entry_id`;
        returns that message's text for the editor."""
        store = self.session.store
        entry = store.get_entry(entry_id)
        if not isinstance(entry, MessageEntry) or not isinstance(entry.message, UserMessage):
            raise SessionError(f"entry {entry_id} is not a user message")
        text = content_text(entry.message.content)
        if entry.parent_id is None:
            await self._replace(self._empty_child(store), "fork")
        else:
            await self._replace(_branched(store, entry.parent_id), "fork")
        return text

    def fork_candidates(self) -> list[tuple[str, str]]:
        """pi's `getUserMessagesForForking`: (entry id, text) of every user message with text, file order."""
        found = []
        for entry in self.session.store.entries:
            if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
                text = content_text(entry.message.content)
                if text.strip():
                    found.append((entry.id, text))
        return found

    async def clone(self) -> AgentSession:
        """`/clone`: a new session holding the current root→leaf path (refused while it has no message)."""
        store = self.session.store
        if store.leaf_id is None or not any(isinstance(e, MessageEntry) for e in store.get_branch()):
            raise SessionError(NOTHING_TO_CLONE)
        return await self._replace(_branched(store, store.leaf_id), "fork")

    def _empty_child(self, store: SessionStore) -> SessionStore:
        """A brand-new session whose header names the current file as its parent."""
        parent = str(store.path) if store.path is not None else None
        header = SessionHeader(
            version=CURRENT_SESSION_VERSION,
            id=uuid7(),
            timestamp=iso_timestamp(),
            cwd=store.cwd,
            parent_session=parent,
        )
        if store.path is None:
            return SessionStore(header, [], path=None, persist=False)
        return SessionStore(header, [], path=self._session_dir / session_file_name(header), persist=True)

    async def import_jsonl(self, path: Path, *, cwd_override: str | None = None) -> AgentSession:
        """`/import`: copy a session file into the session folder (unless it is there) and resume it."""
        target = await asyncio.to_thread(_copy_into, path, self._session_dir)
        return await self.switch_session(target, cwd_override=cwd_override)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigationResult:
        """`/tree`: see `AgentSession.navigate_tree`."""
        return await self.session.navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def dispose(self, wait_s: float | None = None) -> None:
        """Stop the current session's work and close the provider's connections (quit).

        `wait_s` bounds the wait for the work to stop: quitting must not hang on a tool that ignores the
        abort. The connections are closed either way."""
        self.session.abort()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.session.wait_for_idle(), wait_s)
        finally:
            await self.http_pool.aclose()


def recorded_model(store: SessionStore) -> tuple[ModelConfig, str] | None:
    """The model the session last used, if models.json lists it (or its provider is one pi-tui knows
    without it: Anthropic's built-in provider, pi's catalog) and its provider has a key."""
    recorded = store.build_context().model
    if recorded is None:
        return None
    registry = load_registry()
    ref = f"{recorded.provider}/{recorded.model_id}"
    model = registry.find(ref)
    if model is None:
        resolved = resolve_model(ref, registry=registry)
        found = resolved.model
        if found is None or found.window_source != CATALOG_WINDOW or found.provider != recorded.provider:
            return None
        return (found, resolved.api_key) if resolved.api_key else None
    if model.provider != recorded.provider:
        return None
    key = registry.api_key(model.provider, os.environ)
    return (model.model_copy(deep=True), key) if key else None


def _copy_into(path: Path, folder: Path) -> Path:
    """Copy a session file into `folder` as an owner-only file; the copy's path."""
    source = path.expanduser()
    if not source.is_file():
        raise SessionOpenError(f"File not found: {path}")
    target = folder / source.name
    if source.resolve() != target.resolve():
        ensure_private_dir(folder)
        replace_file_atomically(target, source.read_bytes())
    return target


def _branched(store: SessionStore, leaf_id: str) -> SessionStore:
    """A fork or clone, sharing the source's file checkpoints by content (docs/rewind.md)."""
    branched = store.create_branched_session(leaf_id)
    checkpoints_for(store).share_with(branched.session_id)
    return branched
