"""S GetContainerEvents subscribers on one grpc.aio channel, counting raw deliveries.

    python bench/subs.py unix:///path/to.sock S

Prints {"ready": true} once the calls are started; then answers each stdin line
("count" or "quit") with {"count": deliveries so far}. Events are not parsed.
"""
from __future__ import annotations

import asyncio
import json
import sys
import threading

import grpc

METHOD = "/runtime.v1.RuntimeService/GetContainerEvents"
counter = [0]


async def subscriber(channel: grpc.aio.Channel) -> None:
    call = channel.unary_stream(METHOD)(b"")
    try:
        async for _ in call:
            counter[0] += 1
    except grpc.aio.AioRpcError:
        pass


def main() -> None:
    target, n = sys.argv[1], int(sys.argv[2])
    loop = asyncio.new_event_loop()
    started = threading.Event()

    async def run() -> None:
        channel = grpc.aio.insecure_channel(target)
        tasks = [asyncio.ensure_future(subscriber(channel)) for _ in range(n)]
        started.set()
        await asyncio.gather(*tasks)

    threading.Thread(target=lambda: loop.run_until_complete(run()), daemon=True).start()
    started.wait()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        print(json.dumps({"count": counter[0]}), flush=True)
        if line.strip() == "quit":
            break


if __name__ == "__main__":
    main()
