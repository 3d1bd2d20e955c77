"""Compaction below the session layer: pi's algorithm (pi-behaviour §4, §5) and pi-tui's additions.

One job per module: token estimates, the automatic trigger decision, the cut point, preparation,
serialisation, prompts, file operations, the summary calls, branch summaries, and the beyond-pi
preview, diff, loss audit and pins. Everything here reads the neutral `PathItem` view of a branch;
the session layer (`pi_tui.session.compaction_ops`) turns a store into items and appends the
resulting entry.
"""
