"""The runtime's state machine. Pure Python: no gRPC, no protobuf, no threads, no sleeping.

The server owns one `Runtime` and calls it from a single event loop, so the core
needs no lock of its own.
"""
