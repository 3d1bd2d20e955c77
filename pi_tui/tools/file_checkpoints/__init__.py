"""File checkpoints: what the agent's tools changed on disk, kept so a rewind can put it back.

`store` keeps contents by their SHA-256 beside the session; `capture` records a file's state before and
after `write`, `edit` and `bash` change it. What is and is not restorable: docs/rewind.md.
"""

CHECKPOINT_DETAILS_KEY = "piTuiCheckpoint"
"""The key of a tool result's `details` that holds its checkpoint (kept here, where importing it is free)."""
