"""The command palette (ctrl+p) lists every slash command of the chat screen."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from pi_tui.tui.slash_commands import SLASH_COMMANDS, SlashCommand


class SlashCommandProvider(Provider):
    """Each hit runs the same `action_*` as the slash command, without arguments."""

    def _run(self, command: SlashCommand) -> None:
        self.app.run_worker(self.screen.run_action(command.action), group="command", exit_on_error=False)

    async def discover(self) -> Hits:
        for command in SLASH_COMMANDS:
            yield DiscoveryHit(f"/{command.name}", partial(self._run, command), help=command.description)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in SLASH_COMMANDS:
            text = f"/{command.name}"
            score = matcher.match(f"{text} {command.description}")
            if score > 0:
                yield Hit(
                    score, matcher.highlight(text), partial(self._run, command), help=command.description
                )
