"""pi's session file: entries, ids, reading (loader, migrations, diagnostics), writing, the store,
the tree and its listing, forking, the context rebuild, usage totals and session arguments.

Below `context`: compaction and accounting read entries from here directly. Nothing in this package
knows about a live agent; that is `pi_tui.session`."""
