"""The CRI and control servicers: protobuf in, engine calls, protobuf out."""
