from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Node(_message.Message):
    __slots__ = ("name", "socket", "pod_cidr", "seed", "streaming_url", "state_file", "sandboxes", "containers")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOCKET_FIELD_NUMBER: _ClassVar[int]
    POD_CIDR_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STREAMING_URL_FIELD_NUMBER: _ClassVar[int]
    STATE_FILE_FIELD_NUMBER: _ClassVar[int]
    SANDBOXES_FIELD_NUMBER: _ClassVar[int]
    CONTAINERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    socket: str
    pod_cidr: str
    seed: int
    streaming_url: str
    state_file: str
    sandboxes: int
    containers: int
    def __init__(self, name: _Optional[str] = ..., socket: _Optional[str] = ..., pod_cidr: _Optional[str] = ..., seed: _Optional[int] = ..., streaming_url: _Optional[str] = ..., state_file: _Optional[str] = ..., sandboxes: _Optional[int] = ..., containers: _Optional[int] = ...) -> None: ...

class ListNodesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListNodesResponse(_message.Message):
    __slots__ = ("nodes",)
    NODES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[Node]
    def __init__(self, nodes: _Optional[_Iterable[_Union[Node, _Mapping]]] = ...) -> None: ...

class AddNodeRequest(_message.Message):
    __slots__ = ("name", "pod_cidr")
    NAME_FIELD_NUMBER: _ClassVar[int]
    POD_CIDR_FIELD_NUMBER: _ClassVar[int]
    name: str
    pod_cidr: str
    def __init__(self, name: _Optional[str] = ..., pod_cidr: _Optional[str] = ...) -> None: ...

class RemoveNodeRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RemoveNodeResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Fault(_message.Message):
    __slots__ = ("name", "type", "target", "stage", "toxicity", "count", "attributes", "hits")
    class AttributesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    TOXICITY_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    HITS_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    target: str
    stage: str
    toxicity: float
    count: int
    attributes: _containers.ScalarMap[str, str]
    hits: int
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., target: _Optional[str] = ..., stage: _Optional[str] = ..., toxicity: _Optional[float] = ..., count: _Optional[int] = ..., attributes: _Optional[_Mapping[str, str]] = ..., hits: _Optional[int] = ...) -> None: ...

class AddFaultRequest(_message.Message):
    __slots__ = ("fault",)
    FAULT_FIELD_NUMBER: _ClassVar[int]
    fault: Fault
    def __init__(self, fault: _Optional[_Union[Fault, _Mapping]] = ...) -> None: ...

class ListFaultsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListFaultsResponse(_message.Message):
    __slots__ = ("faults",)
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    def __init__(self, faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ...) -> None: ...

class RemoveFaultRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RemoveFaultResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResetFaultsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResetFaultsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExitContainerRequest(_message.Message):
    __slots__ = ("container_id", "exit_code", "reason", "message", "oom")
    CONTAINER_ID_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OOM_FIELD_NUMBER: _ClassVar[int]
    container_id: str
    exit_code: int
    reason: str
    message: str
    oom: bool
    def __init__(self, container_id: _Optional[str] = ..., exit_code: _Optional[int] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., oom: _Optional[bool] = ...) -> None: ...

class ExitContainerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetStatsRequest(_message.Message):
    __slots__ = ("container_id", "cpu", "memory", "memory_usage", "memory_rss", "disk", "psi", "clear")
    CONTAINER_ID_FIELD_NUMBER: _ClassVar[int]
    CPU_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    MEMORY_USAGE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_RSS_FIELD_NUMBER: _ClassVar[int]
    DISK_FIELD_NUMBER: _ClassVar[int]
    PSI_FIELD_NUMBER: _ClassVar[int]
    CLEAR_FIELD_NUMBER: _ClassVar[int]
    container_id: str
    cpu: str
    memory: str
    memory_usage: str
    memory_rss: str
    disk: str
    psi: str
    clear: bool
    def __init__(self, container_id: _Optional[str] = ..., cpu: _Optional[str] = ..., memory: _Optional[str] = ..., memory_usage: _Optional[str] = ..., memory_rss: _Optional[str] = ..., disk: _Optional[str] = ..., psi: _Optional[str] = ..., clear: _Optional[bool] = ...) -> None: ...

class SetStatsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetConditionRequest(_message.Message):
    __slots__ = ("type", "status", "reason", "message", "duration_seconds")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    type: str
    status: bool
    reason: str
    message: str
    duration_seconds: float
    def __init__(self, type: _Optional[str] = ..., status: _Optional[bool] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., duration_seconds: _Optional[float] = ...) -> None: ...

class SetConditionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RestartRuntimeRequest(_message.Message):
    __slots__ = ("downtime_seconds", "wipe_state")
    DOWNTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WIPE_STATE_FIELD_NUMBER: _ClassVar[int]
    downtime_seconds: float
    wipe_state: bool
    def __init__(self, downtime_seconds: _Optional[float] = ..., wipe_state: _Optional[bool] = ...) -> None: ...

class RestartRuntimeResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AdvanceClockRequest(_message.Message):
    __slots__ = ("seconds",)
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    seconds: float
    def __init__(self, seconds: _Optional[float] = ...) -> None: ...

class AdvanceClockResponse(_message.Message):
    __slots__ = ("now_ns",)
    NOW_NS_FIELD_NUMBER: _ClassVar[int]
    now_ns: int
    def __init__(self, now_ns: _Optional[int] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResetResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CallRecord(_message.Message):
    __slots__ = ("method", "summary", "code", "duration_seconds", "at_ns")
    METHOD_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    AT_NS_FIELD_NUMBER: _ClassVar[int]
    method: str
    summary: str
    code: str
    duration_seconds: float
    at_ns: int
    def __init__(self, method: _Optional[str] = ..., summary: _Optional[str] = ..., code: _Optional[str] = ..., duration_seconds: _Optional[float] = ..., at_ns: _Optional[int] = ...) -> None: ...

class GetCallLogRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCallLogResponse(_message.Message):
    __slots__ = ("calls",)
    CALLS_FIELD_NUMBER: _ClassVar[int]
    calls: _containers.RepeatedCompositeFieldContainer[CallRecord]
    def __init__(self, calls: _Optional[_Iterable[_Union[CallRecord, _Mapping]]] = ...) -> None: ...

class FaultRecord(_message.Message):
    __slots__ = ("fault", "type", "hit", "at_ns")
    FAULT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    HIT_FIELD_NUMBER: _ClassVar[int]
    AT_NS_FIELD_NUMBER: _ClassVar[int]
    fault: str
    type: str
    hit: str
    at_ns: int
    def __init__(self, fault: _Optional[str] = ..., type: _Optional[str] = ..., hit: _Optional[str] = ..., at_ns: _Optional[int] = ...) -> None: ...

class GetFaultLogRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetFaultLogResponse(_message.Message):
    __slots__ = ("records",)
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[FaultRecord]
    def __init__(self, records: _Optional[_Iterable[_Union[FaultRecord, _Mapping]]] = ...) -> None: ...

class GetServerInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetServerInfoResponse(_message.Message):
    __slots__ = ("seed", "counters", "errors")
    class CountersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    SEED_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    seed: int
    counters: _containers.ScalarMap[str, int]
    errors: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seed: _Optional[int] = ..., counters: _Optional[_Mapping[str, int]] = ..., errors: _Optional[_Iterable[str]] = ...) -> None: ...
