"""Handing a thread worker's result to the UI, unless nobody is there to take it any more.

Textual removes a closing screen's widgets before it cancels that screen's workers, so a result that
arrives while the app quits or a screen is dismissed would query widgets that are already gone (the
worker then fails with `NoMatches`, seen in `bench/tui.py --only open`). A worker superseded by a newer
one of its exclusive group is cancelled too; its result, if already on its way, is stale.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

from textual.dom import DOMNode
from textual.worker import NoActiveWorker, get_current_worker

P = ParamSpec("P")


def is_closing(node: DOMNode) -> bool:
    """Whether `node`, or a node above it, is being closed or is closed."""
    return any(
        getattr(each, "_closing", False) or getattr(each, "_closed", False)
        for each in node.ancestors_with_self
    )


def deliver(node: DOMNode, callback: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> None:
    """From a worker thread: run `callback` on the app's loop, unless by then the worker was cancelled
    or `node` (the widget, screen or app the callback draws on) is closing. Returns once it ran or was
    dropped."""
    try:
        worker = get_current_worker()
    except NoActiveWorker:
        worker = None

    def unless_gone() -> None:
        if (worker is None or not worker.is_cancelled) and not is_closing(node):
            callback(*args, **kwargs)

    if worker is not None and worker.is_cancelled:
        return
    try:
        app = node.app  # outside the loop's context Textual finds the app through the node's parents
    except RuntimeError:  # NoActiveAppError: `node` was removed, its screen is gone
        return
    if app.is_running:
        app.call_from_thread(unless_gone)
