"""Protobuf to the engine's values and back: configs decoded, messages built, wire fragments, statuses."""
