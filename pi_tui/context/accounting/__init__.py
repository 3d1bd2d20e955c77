"""Context accounting: what each request cost, why the cache broke, and how much room is left.

Everything here is UI-free and works on plain values (session entries, messages, prompt segments), so the
inspector screen, `pi-tui context` and tests share one implementation. Nothing here stores payload text:
records hold counts and hashes only.
"""
