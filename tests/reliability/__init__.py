"""Reliability suite (issue 9): fuzzed input, concurrency, slow subscribers, crash-safe state, limits, sockets, soak."""
