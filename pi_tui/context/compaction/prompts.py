"""The texts a summariser is given (compaction, update and branch summaries, as pi asks for them),
written in pi-tui's own words.

The section skeletons and headings are exactly pi's, so summaries written by either tool merge
cleanly into each other's update prompts. The request layout is pi's: the serialised span in
`<conversation>`, the previous summary (if any) in `<previous-summary>`, then the instructions.
pi-tui adds a `<pinned>` block and its instruction only when the user pinned something, so a
session without pins sends byte-for-byte pi's request.
"""

from __future__ import annotations

from collections.abc import Sequence

SUMMARIZATION_SYSTEM_PROMPT = (
    "You condense conversations into context checkpoints. You will read a conversation between a user "
    "and an AI coding assistant and write a structured summary in exactly the format you are asked for. "
    "Do not carry on the conversation and do not answer any question it contains: reply with the "
    "summary and nothing else."
)

SUMMARY_FORMAT = """Use EXACTLY this format, with the sections in this order:

## Goal
[What the user wants to achieve; list each task if there are several.]

## Constraints & Preferences
- [A constraint, preference or requirement the user stated]
- [or (none) if there were none]

## Progress
### Done
- [x] [Work that is finished]

### In Progress
- [ ] [Work that is under way]

### Blocked
- [Problems holding the work up, if any]

## Key Decisions
- **[Decision]**: [Short reason for it]

## Next Steps
1. [What to do next, in order]

## Critical Context
- [Data, examples or references needed to continue]
- [or (none) if nothing applies]

Keep every section short. Keep file paths, function names and error messages exactly as written."""
"""The skeleton of a first summary (pi's sections and headings)."""

UPDATE_RULES_AND_FORMAT = """Rules:
- Keep everything the previous summary records.
- Add the new progress, decisions and context.
- Move items from "In Progress" to "Done" once they are finished.
- Bring "Next Steps" up to date with the work just done.
- Keep file paths, function names and error messages exactly as written.
- Items that no longer matter may be dropped.

Use EXACTLY this format, with the sections in this order:

## Goal
[The existing goals, plus any new ones]

## Constraints & Preferences
- [The existing ones, plus any new ones]

## Progress
### Done
- [x] [Items finished earlier and items finished now]

### In Progress
- [ ] [Current work, updated]

### Blocked
- [Current blockers; leave out the resolved ones]

## Key Decisions
- **[Decision]**: [Short reason] (every earlier decision, plus the new ones)

## Next Steps
1. [The updated list of what to do next]

## Critical Context
- [What still matters from before, plus new data]

Keep every section short. Keep file paths, function names and error messages exactly as written."""
"""How a previous summary is merged with new messages, and the skeleton of the result."""

TURN_PREFIX_FORMAT = """Use this format:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions taken and work done in this first part]

## Context for Suffix
- [What is needed to understand the kept recent work]

Be brief: include only what the kept part needs."""

SUMMARIZATION_PROMPT = (
    "The conversation above is to be condensed. Write a structured context checkpoint that another LLM "
    "will rely on to carry on with the work."
    "\n\n" + SUMMARY_FORMAT
)

UPDATE_SUMMARIZATION_PROMPT = (
    "The conversation above contains NEW messages. Merge them into the existing summary given in "
    "<previous-summary>."
    "\n\n" + UPDATE_RULES_AND_FORMAT
)

TURN_PREFIX_SUMMARIZATION_PROMPT = (
    "The conversation above is the FIRST PART of one turn that was too long to keep whole. The LAST PART "
    "of that turn (the most recent work) stays in the context word for word. Summarise this first part "
    "so that the kept part can be understood."
    "\n\n" + TURN_PREFIX_FORMAT
)

BRANCH_SUMMARY_PROMPT = (
    (
        "Write a structured summary of this conversation branch. It gives context when the user later comes "
        "back to this point."
    )
    + """

Use EXACTLY this format:

## Goal
[What the user was trying to do in this branch]

## Constraints & Preferences
- [A constraint, preference or requirement the user stated]
- [or (none) if there were none]

## Progress
### Done
- [x] [Work that is finished]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Problems holding the work up, if any]

## Key Decisions
- **[Decision]**: [Short reason for it]

## Next Steps
1. [What should happen next to carry on]

Keep every section short. Keep file paths, function names and error messages exactly as written."""
)

BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\n"
    + "Summary of that exploration:\n\n"
)

PINNED_SECTION_HEADING = "## Pinned"
PINNED_INSTRUCTION = (
    "The user pinned the items in <pinned>. End the summary with a `## Pinned` section that repeats "
    "every one of them word for word, one list item each."
)

NO_PRIOR_HISTORY = "No prior history."
SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"
NO_BRANCH_CONTENT = "No content to summarize"
NO_BRANCH_SUMMARY = "No summary generated"


def with_focus(prompt: str, custom_instructions: str | None) -> str:
    """Manual `/compact <instructions>`: pi appends them as an additional focus."""
    return f"{prompt}\n\nAdditional focus: {custom_instructions}" if custom_instructions else prompt


def pinned_block(pins: Sequence[str]) -> str:
    return "<pinned>\n" + "\n".join(f"- {pin}" for pin in pins) + "\n</pinned>"


def summary_request_text(
    conversation: str,
    instructions: str,
    *,
    previous_summary: str | None = None,
    pins: Sequence[str] = (),
) -> str:
    """The single user message of a summary call."""
    text = f"<conversation>\n{conversation}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    if pins:
        text += pinned_block(pins) + "\n\n"
        instructions = f"{instructions}\n\n{PINNED_INSTRUCTION}"
    return text + instructions
