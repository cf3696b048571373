"""The engine's errors (and the server's own three) as gRPC status codes: each error carries its
code name (engine/errors.py, server/exceptions.py)."""
from __future__ import annotations

import grpc

from fakecri.engine import errors

_BY_NAME: dict[str, grpc.StatusCode] = {code.name: code for code in grpc.StatusCode}


def code_for(exc: errors.CoreError) -> grpc.StatusCode:
    """The status an error answers with; an unknown name (never a caller mistake) is UNKNOWN."""
    return _BY_NAME.get(exc.code, grpc.StatusCode.UNKNOWN)
