"""AsyncCRIClient: the shared typed calls over grpc.aio, on real sockets.

The coroutines run on the loop the in-process servers share (`run_on_shared_loop`), not under
`asyncio.run`, so grpc.aio in this process keeps to the one loop it is built for."""
import asyncio

import grpc
import pytest
from helpers.cri_stub import StubRuntime, StubServer
from helpers.live import IMAGE, fakecri

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import EventStreamClosed, NotFoundError, UnavailableError
from fakecri.client.async_client import AsyncCRIClient
from fakecri.server.process.app import run_on_shared_loop as run


def stub():
    s = StubRuntime()
    s.containers = [pb.Container(id=f"c{i}", pod_sandbox_id="s1", state=pb.CONTAINER_RUNNING) for i in range(3)]
    return s


def test_calls_errors_and_stream_fallback():
    servicer = stub()
    servicer.stream_containers = False

    async def main():
        async with AsyncCRIClient(server.endpoint, timeout=5) as client:
            assert (await client.version()).runtime_name == "stub"
            with pytest.raises(NotFoundError):
                await client.container_status("nope")
            first = await client.list_containers(streaming=True)
            second = await client.list_containers(streaming=True)
            return [c.id for c in first], [c.id for c in second], client.unimplemented_streams

    with StubServer(servicer) as server:
        first, second, remembered = run(main())
    assert first == second == ["c0", "c1", "c2"]
    assert remembered == {"StreamContainers"}
    assert servicer.calls == ["Version", "ContainerStatus", "StreamContainers", "ListContainers", "ListContainers"]


def test_partial_stream_raises():
    servicer = stub()
    servicer.fail_stream_after = 1

    async def main():
        async with AsyncCRIClient(server.endpoint, timeout=5) as client:
            with pytest.raises(UnavailableError):
                await client.list_containers(streaming=True)

    with StubServer(servicer) as server:
        run(main())
    assert servicer.calls == ["StreamContainers"]


@pytest.mark.parametrize("end", [grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE])
def test_event_stream_end_is_a_failure_and_cancel_is_quiet(end):
    servicer = stub()
    servicer.events = [pb.ContainerEventResponse(container_id="c1", created_at=1)]
    servicer.event_end = end

    async def ended():
        async with AsyncCRIClient(server.endpoint, timeout=5) as client:
            got = []
            with pytest.raises(EventStreamClosed) as info:
                async for ev in await client.get_container_events():
                    got.append(ev.container_id)
            return got, info.value.code

    async def cancelled():
        servicer.event_hold.clear()
        async with AsyncCRIClient(server.endpoint, timeout=5) as client:
            stream = await client.get_container_events()
            got = [(await stream.__anext__()).container_id]
            asyncio.get_running_loop().call_later(0.1, stream.cancel)
            got += [ev.container_id async for ev in stream]
            return got

    with StubServer(servicer) as server:
        assert run(ended()) == (["c1"], end)
        assert run(cancelled()) == ["c1"]


def test_against_fakecri():
    async def main(endpoint):
        async with AsyncCRIClient(endpoint, timeout=10) as client:
            await client.pull_image(IMAGE)
            sid = await client.run_pod_sandbox(
                pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name="p", namespace="ns", uid="u1")))
            cid = await client.create_container(
                sid, pb.ContainerConfig(metadata=pb.ContainerMetadata(name="c"), image=pb.ImageSpec(image=IMAGE),
                                        command=["sleep", "3600"]))
            await client.start_container(cid)
            status = await client.container_status(cid)
            unary = await client.list_containers()
            streamed = await client.list_containers(streaming=True)
            await client.stop_pod_sandbox(sid)
            await client.remove_pod_sandbox(sid)
            return status.status.state, [c.id for c in unary], [c.id for c in streamed], cid

    with fakecri() as server:
        state, unary, streamed, cid = run(main(server.endpoint))
    assert state == pb.CONTAINER_RUNNING and unary == streamed == [cid]
