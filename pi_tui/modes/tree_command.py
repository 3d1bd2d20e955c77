"""`pi-tui tree <session> [--filter MODE] [--label ENTRY TEXT] [--json]`: the session tree as `/tree`
shows it (the same filters, ● where the session is, • its branch, labels in brackets), and labelling an
entry without opening the app (an empty TEXT removes the label). Moving the leaf stays interactive:
`/tree` in the app, where a branch summary can be asked for.
"""

from __future__ import annotations

import sys
from dataclasses import asdict

from pydantic.alias_generators import to_camel

from pi_tui.modes.session_command_support import fail, open_session, print_json, session_parser
from pi_tui.session.rewind import mark_tree_lines
from pi_tui.session.session_setup import checkpoints_for
from pi_tui.session_file.tree_listing import TREE_FILTERS, TreeFilter, set_label, tree_line_text, tree_lines


def run_tree_command(argv: list[str]) -> int:
    parser = session_parser("pi-tui tree", "A session's tree, as /tree shows it; label its entries.")
    parser.add_argument("--filter", choices=TREE_FILTERS, default="default", help="which entries to list")
    parser.add_argument("--label", nargs=2, metavar=("ENTRY", "TEXT"), help="label an entry ('' removes it)")
    options = parser.parse_args(argv)
    store = open_session(options.session, options.session_dir, writes=options.label is not None)
    if isinstance(store, str):
        return fail(store)
    if options.label is not None:
        entry_id, text = options.label
        problem = set_label(store, entry_id, text)
        if problem is not None:
            return fail(problem)
    mode: TreeFilter = options.filter
    # Points whose files the checkpoint cap dropped are marked, as in `/tree` (docs/rewind.md).
    lines = mark_tree_lines(store, checkpoints_for(store), tree_lines(store, mode))
    if options.json:
        print_json([_camel(asdict(line)) for line in lines])
        return 0
    if not lines:
        sys.stdout.write("No entries.\n")
    for line in lines:
        sys.stdout.write(f"{line.entry_id}  {tree_line_text(line)}\n")
    return 0


def _camel(fields: dict[str, object]) -> dict[str, object]:
    """JSON keys in camelCase, like pi's files and the other commands."""
    return {to_camel(name): value for name, value in fields.items()}
