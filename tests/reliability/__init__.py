"""Reliability suite, the proof of what README calls Guarantees (docs/guarantees.md): fuzzed input,
concurrency, slow subscribers, crash-safe state, limits, sockets, soak."""
