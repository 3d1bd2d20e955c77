"""Support modules of bench/tui.py (the entry point); `make bench` runs only bench/*.py."""
