"""Where the keyboard is on the chat screen, and where the side panel is: the conversation, the side
panel or the editor.

F6 / shift+F6 move between the three (only those on screen) without tabbing through every tool block;
F2-F4 open their pane and put the keyboard in it; ctrl+b hides or shows the panel. The focus moves at
once, not after the keys already queued, so text typed right after the key lands where the key went. F11
gives the focused pane the whole screen. The footer lists only the keys that act where the focus is: a
key that works everywhere but belongs to another part (the model picker while reading a pane) is left
out of it, still working; and it names the part that holds the keyboard when that is not the editor.

Typing is never lost: a printable key that means nothing where the focus is (a letter in the conversation,
`/` in the Compactions pane) moves the focus to the editor and lands there, as in pi, Claude Code and Codex.
The decision is made when the app reads the key (`route_typed_key`), before it hands the key on, so the keys
of a burst that follow it reach the editor too, in order. A pane's one-letter keys act only while the pane
holds the keyboard; Esc there gives the keyboard back to the editor, at every width.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from textual import events, on
from textual.binding import ActiveBinding, Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.side_panel import SidePanel
from pi_tui.tui.widgets.status_footer import StatusFooter
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

Part = Literal["conversation", "panel", "editor"]
PARTS: tuple[Part, ...] = ("conversation", "panel", "editor")
"""The order F6 visits them in."""
PANES = (ConversationView, ContextInspector, ToolOutputViewer, CompactionTimeline)
"""What F11 can give the whole screen."""
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
PANE_NAMES = {
    "pane-context": "Context pane",
    "pane-tools": "Tools pane",
    "pane-compactions": "Compactions pane",
}
"""How the footer names the pane that holds the keyboard."""
PANE_KEYS = Binding.Group("Panes")
"""The three pane keys share one footer label (the panel's tabs name the panes, in key order)."""


class PaneFocus(Screen[None]):
    """The chat screen's parts and the keys that move between them; `ChatScreen` builds on it."""

    side_hidden: var[bool] = var(False, toggle_class="-side-hidden")
    """Ctrl+B hid the side panel (wide screens show it unless asked not to)."""
    side_shown: var[bool] = var(False, toggle_class="-side-shown")
    """The side panel was asked for (narrow screens hide it unless asked for, and show it in the
    conversation's place)."""

    @property
    def side_panel(self) -> SidePanel:
        return self.query_one(SidePanel)

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
        if any(isinstance(node, SidePanel) for node in chain):
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
        return self.side_panel

    def action_cycle_focus(self, step: int = 1) -> None:
        """F6 (shift+F6 back): conversation → panel → editor, skipping what is not on screen."""
        if self.maximized is not None:
            self.minimize()
        shown = [part for part in PARTS if self._part_shown(part)]
        current = self.focused_part()
        index = shown.index(current) if current in shown else -step if step > 0 else 0
        target = shown[(index + step) % len(shown)]
        if target == "panel":
            self.side_panel.focus_pane(self.side_panel.active_pane)
        else:
            self.set_focus(self._part_widget(target))

    def keyboard_holder(self) -> str | None:
        """What the footer names as holding the keyboard: None for the editor (the usual place)."""
        part = self.focused_part()
        if part == "editor":
            return None
        if part == "panel":
            return PANE_NAMES.get(self.side_panel.active_pane, "side panel")
        return "conversation" if part == "conversation" else None

    def watch_focused(self) -> None:
        for footer in self.query(StatusFooter):
            footer.show_keyboard(self.keyboard_holder())

    def route_typed_key(self, event: events.Key) -> None:
        """Called by the app for each key it reads, before it hands the key to the focused widget: a
        printable key that nothing where the focus is would act on moves the focus to the editor, so the
        editor gets it (and the rest of a burst behind it)."""
        if not event.is_printable or event.character is None:
            return
        focused = self.focused
        if isinstance(focused, Input) or (isinstance(focused, TextArea) and not focused.read_only):
            return  # typed into a text box: the editor, the Tools pane's search, a dialog's field
        if self.maximized is not None:
            return  # a pane given the whole screen keeps the keyboard until F11 or Esc gives it back
        active = self.active_bindings.get(event.key)
        if active is not None and active.enabled:
            return  # a pane's own key while the pane holds the keyboard
        self.set_focus(self.query_one(PromptArea))

    def focus_editor_from_pane(self) -> bool:
        """Esc in a side pane or the conversation: the editor takes the keyboard back (a pane stays where
        it is on a wide screen); False when the focus was already in the editor."""
        if self.focused_part() not in ("panel", "conversation"):
            return False
        self.set_focus(self.query_one(PromptArea))
        return True

    def keep_focus_on_screen(self) -> None:
        """After a resize: if the part with the focus was hidden (Textual then leaves nothing focused),
        the editor takes the keys, so typing goes on where it can be seen."""
        part = self.focused_part()
        if part is None or not self._part_shown(part):
            self.set_focus(self.query_one(PromptArea))

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
            target = self.side_panel.active_pane_widget()
        self.maximize(target or self.query_one(ConversationView), container=False)

    # --- the side panel --------------------------------------------------------------------------------

    def show_pane(self, pane_id: str) -> None:
        """Open the side panel on `pane_id` and put the keyboard in it (from anywhere, a pane included)."""
        was_maximized = self.maximized
        if was_maximized is not None:
            self.minimize()
        self.side_hidden = False
        self.side_shown = True
        self.side_panel.open_pane(pane_id)
        if was_maximized is not None and not isinstance(was_maximized, ConversationView):
            # A maximised pane stays maximised: the chosen one takes its place.
            self.call_after_refresh(self.action_maximize_pane)
        self.call_after_refresh(self.side_panel.catch_up)

    def on_resize(self) -> None:
        self.call_after_refresh(self.side_panel.catch_up)  # a wider screen shows the side panel
        self.call_after_refresh(self.keep_focus_on_screen)  # a narrower one may hide where it was

    def action_toggle_side(self, args: str = "") -> None:
        """Ctrl+B: hide or show the side panel (on narrow screens it is hidden until asked for, and
        shown it takes the conversation's place)."""
        if self.has_class("-narrow"):
            self.side_shown = not self.side_shown
        else:
            self.side_hidden = not self.side_hidden
        if self.focused_part() == "panel":
            self.set_focus(self.query_one(PromptArea))
        self.call_after_refresh(self.side_panel.catch_up)

    def close_pane_in_conversations_place(self) -> bool:
        """On a narrow screen, hide the side panel if it stands in the conversation's place (the editor
        takes the keys); False when there was none."""
        if not (self.has_class("-narrow") and self.side_shown):
            return False
        self.action_toggle_side()
        return True

    def action_pane_context(self, args: str = "") -> None:
        self.show_pane("pane-context")

    def action_pane_tools(self, args: str = "") -> None:
        """F3: the Tools pane, on the call ctrl+o acts on (its block says "F3 for all"); from inside the
        pane, the call shown stays."""
        target = None if self.side_panel.tools_focused() else self.query_one(ConversationView).current_tool()
        self.show_pane("pane-tools")
        if target is not None:
            self.side_panel.select_tool_call(target.call_key)

    def action_pane_compactions(self, args: str = "") -> None:
        self.show_pane("pane-compactions")

    @on(ToolCallBlock.Selected)
    def _open_tool_call(self, event: ToolCallBlock.Selected) -> None:
        self.show_pane("pane-tools")
        self.side_panel.select_tool_call(event.call_key)

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
