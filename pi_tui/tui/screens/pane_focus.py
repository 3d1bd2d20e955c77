"""Where the keyboard is on the chat screen: the conversation, the side panel or the editor.

F6 / shift+F6 move between the three (only those on screen) without tabbing through every tool block;
F2-F4 put it in their pane. The focus moves at once, not after the keys already queued, so text typed
right after the key lands where the key went. F11 gives the focused pane the whole screen. The footer
lists only the keys that act where the focus is: a key that works everywhere but belongs to another
part (the model picker while reading a pane) is left out of it, still working.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent

from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

Part = Literal["conversation", "panel", "editor"]
PARTS: tuple[Part, ...] = ("conversation", "panel", "editor")
"""The order F6 visits them in."""
PANES = (ConversationView, ContextInspector, ToolOutputViewer, CompactionTimeline)
"""What F11 can give the whole screen."""
PANE_FOCUS = {
    "pane-context": "#inspector-table",
    "pane-tools": "#tool-list",
    "pane-compactions": "#timeline-table",
}
"""What a pane's key focuses the first time (afterwards: where the focus last was in that pane)."""
PANE_WIDGETS: dict[str, type[Widget]] = {
    "pane-context": ContextInspector,
    "pane-tools": ToolOutputViewer,
    "pane-compactions": CompactionTimeline,
}
FOOTER_PARTS: dict[str, frozenset[Part]] = {
    "interrupt": frozenset({"editor", "conversation"}),
    "toggle_tool_output": frozenset({"editor", "conversation"}),
    "toggle_thinking": frozenset({"conversation"}),
    "pane_context": frozenset({"editor"}),
    "pane_tools": frozenset({"editor"}),
    "pane_compactions": frozenset({"editor"}),
    "maximize_pane": frozenset({"conversation", "panel"}),
}
"""Screen keys the footer lists only in these parts (they work in every part); the others it lists
everywhere. Eighty columns hold six or seven keys: a pane's own keys come first there."""
PANE_KEYS = Binding.Group("Panes")
"""The three pane keys share one footer label (the panel's tabs name the panes, in key order)."""


class PaneFocus(Screen[None]):
    """Mixed into `ChatScreen`."""

    _pane_focus: dict[str, Widget]
    """The widget last focused in each pane (by pane id), focused again when the pane is chosen."""

    # --- parts ----------------------------------------------------------------------------------------

    def focused_part(self) -> Part | None:
        focused = self.focused
        if focused is None:
            return None
        if isinstance(focused, PromptArea):
            return "editor"
        chain = (focused, *focused.ancestors)
        if any(isinstance(node, ConversationView) for node in chain):
            return "conversation"
        if any(isinstance(node, TabbedContent) and node.id == "side" for node in chain):
            return "panel"
        return None

    def _part_shown(self, part: Part) -> bool:
        widget = self._part_widget(part)
        return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))

    def _part_widget(self, part: Part) -> Widget:
        if part == "conversation":
            return self.query_one(ConversationView)
        if part == "editor":
            return self.query_one(PromptArea)
        return self.query_one("#side", TabbedContent)

    def action_cycle_focus(self, step: int = 1) -> None:
        """F6 (shift+F6 back): conversation → panel → editor, skipping what is not on screen."""
        if self.maximized is not None:
            self.minimize()
        shown = [part for part in PARTS if self._part_shown(part)]
        current = self.focused_part()
        index = shown.index(current) if current in shown else -step if step > 0 else 0
        target = shown[(index + step) % len(shown)]
        if target == "panel":
            self.focus_pane(self.query_one("#side", TabbedContent).active)
        else:
            self.set_focus(self._part_widget(target))

    def keep_focus_on_screen(self) -> None:
        """After a resize: if the part with the focus was hidden (Textual then leaves nothing focused),
        the editor takes the keys, so typing goes on where it can be seen."""
        part = self.focused_part()
        if part is None or not self._part_shown(part):
            self.set_focus(self.query_one(PromptArea))

    def focus_pane(self, pane_id: str) -> None:
        """Focus where the focus last was in the pane, or its main table."""
        remembered = self._pane_focus.get(pane_id)
        if remembered is not None and remembered.is_attached:
            self.set_focus(remembered)
        elif pane_id in PANE_FOCUS:
            self.set_focus(self.query_one(PANE_FOCUS[pane_id]))

    def remember_pane_focus(self, widget: Widget) -> None:
        pane = next((node for node in widget.ancestors if getattr(node, "id", None) in PANE_FOCUS), None)
        if pane is not None and pane.id is not None:
            self._pane_focus[pane.id] = widget

    # --- F11 ------------------------------------------------------------------------------------------

    def action_maximize_pane(self, args: str = "") -> None:
        """Give the focused pane the whole screen (from the editor: the conversation); again to restore."""
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused
        chain = (focused, *focused.ancestors) if focused is not None else ()
        target: Widget | None = next((widget for widget in chain if isinstance(widget, PANES)), None)
        if target is None and not self._part_shown("conversation"):
            # From the editor while a pane has taken the conversation's place: that pane.
            active = self.query_one("#side", TabbedContent).active
            target = self.query_one(PANE_WIDGETS[active]) if active in PANE_WIDGETS else None
        self.maximize(target or self.query_one(ConversationView), container=False)

    # --- footer ---------------------------------------------------------------------------------------

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's, with the screen keys that do not belong where the focus is hidden from the footer
        (they still work: only `show` is changed)."""
        bindings = super().active_bindings
        part = self.focused_part() or "editor"
        for key, active in bindings.items():
            binding = active.binding
            action = binding.action
            if active.node is self:
                hidden = part not in FOOTER_PARTS.get(action, frozenset(PARTS))
            else:
                hidden = active.node is self.app and action == "quit"  # F1 lists it; ctrl+q as anywhere
            if hidden and binding.show:
                bindings[key] = active._replace(binding=dataclasses.replace(binding, show=False))
        # Listed from the focused widget outwards, the screen's keys in their own order: a screen key
        # that overrides one of the focused widget's (F6 in the editor) would be listed in its place.
        chain = list(self.focused.ancestors_with_self) if self.focused is not None else [self, self.app]
        rank = {id(node): index for index, node in enumerate(chain)}
        screen_keys = {binding.key: index for index, binding in enumerate(self.screen_bindings())}

        def position(item: tuple[str, ActiveBinding]) -> tuple[int, int]:
            key, active = item
            own = screen_keys.get(key, 0) if active.node is self else 0
            return rank.get(id(active.node), len(chain)), own

        return dict(sorted(bindings.items(), key=position))

    def screen_bindings(self) -> list[Binding]:
        """The screen's own keys, in the order the footer and F1 list them."""
        return [binding for binding in type(self).BINDINGS if isinstance(binding, Binding)]
