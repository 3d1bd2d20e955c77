"""Test helpers shared across test folders (loopback servers, builders)."""
