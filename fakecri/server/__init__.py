"""The I/O layer: gRPC servicers, event fan-out, control plane, streaming server."""
