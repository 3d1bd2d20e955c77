"""Compaction below the live session: pi's compaction and branch summary algorithms and pi-tui's additions.

One job per module: token estimates, the automatic trigger decision, the cut point, preparation,
serialisation, prompts, file operations, the summary calls, branch summaries, and pi-tui's own
preview, diff, loss audit and pins. Everything here reads the session entries of a branch (root
first); the session layer (`pi_tui.session.compaction_ops`) reads them from a store and appends the
resulting entry.
"""
