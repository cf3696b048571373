"""Shared builders and drivers for fakecri's own tests, importable from any test
directory as `helpers.<module>` (pytest puts `tests/` on the import path)."""
