"""The live session: `AgentSession` (an agent run on a session file), the runtime that owns it and swaps
it on /new, /resume and /fork, the services it is built from, automatic compaction, retries and recovery,
tool approval and the user's `!` commands. The file format itself is `pi_tui.session_file`."""
