"""Exporting a session: one self-contained HTML page, or the current branch as a linear session file."""
