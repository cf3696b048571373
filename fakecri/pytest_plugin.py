"""pytest plugin for fakecri (registered through the pytest11 entry point)."""
