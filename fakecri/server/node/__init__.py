"""The Node: what one socket serves, its commit path, call wrapper, sessions, restarts and state file."""
