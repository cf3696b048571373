"""Logging: JSON lines that parse, level filtering, console on a TTY."""
import io
import json

import pytest

from fakecri.logs import configure_logging, get_logger, resolve_format


class FakeTty(io.StringIO):
    def isatty(self):
        return True


def test_json_lines_parse_and_carry_fields():
    out = io.StringIO()
    assert configure_logging("json", "info", out) == "json"
    log = get_logger("fakecri.test")
    log.info("rpc", method="RunPodSandbox", code="OK", duration_ms=1.5)
    log.warning("slow subscriber", subscriber=3)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["event"] == "rpc" and first["method"] == "RunPodSandbox" and first["duration_ms"] == 1.5
    assert first["level"] == "info" and first["logger"] == "fakecri.test" and first["timestamp"].endswith("Z")
    assert second["level"] == "warning" and second["subscriber"] == 3


def test_level_filters_lower_levels():
    out = io.StringIO()
    configure_logging("json", "warning", out)
    log = get_logger("x")
    log.debug("no")
    log.info("no")
    log.warning("yes")
    log.error("yes too")
    assert [json.loads(line)["event"] for line in out.getvalue().splitlines()] == ["yes", "yes too"]


def test_exceptions_render_inside_one_json_line():
    out = io.StringIO()
    configure_logging("json", "debug", out)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        get_logger("x").exception("failed")
    [line] = out.getvalue().splitlines()
    record = json.loads(line)
    assert "RuntimeError: boom" in record["exception"]


def test_auto_picks_console_on_a_tty_and_json_otherwise():
    assert resolve_format("auto", FakeTty()) == "console"
    assert resolve_format("auto", io.StringIO()) == "json"
    out = FakeTty()
    assert configure_logging("auto", "info", out) == "console"
    get_logger("x").info("hello", pod="web-0")
    text = out.getvalue()
    assert "hello" in text and "pod" in text and "web-0" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.splitlines()[0])


@pytest.mark.parametrize("fmt, level", [("xml", "info"), ("json", "loud")])
def test_bad_format_or_level_is_a_clear_error(fmt, level):
    with pytest.raises(ValueError, match="xml|loud"):
        configure_logging(fmt, level, io.StringIO())


def test_stdlib_logging_follows_the_level_and_stream():
    import logging

    out = io.StringIO()
    configure_logging("json", "error", out)
    logging.getLogger("grpc.test").warning("quiet")
    logging.getLogger("grpc.test").error("loud")
    [line] = out.getvalue().splitlines()
    record = json.loads(line)
    assert record["event"] == "loud" and record["level"] == "error" and record["logger"] == "grpc.test"


def test_a_log_stream_that_fails_never_raises_and_a_broken_pipe_is_replaced_by_devnull(tmp_path):
    import os

    from fakecri.logs import SafeStream

    class Failing:
        def __init__(self, exc):
            self.exc = exc

        def write(self, text):
            raise self.exc

        def flush(self):
            raise self.exc

    full = SafeStream(Failing(OSError(28, "No space left on device")))
    full.write("x\n")
    full.flush()
    assert full.lost == 1 and not full.gone  # a full disk may recover: only that line is lost
    closed = SafeStream(Failing(ValueError("I/O operation on closed file")))
    closed.write("x\n")
    assert closed.lost == 1 and not closed.gone
    read_end, write_end = os.pipe()
    os.close(read_end)
    with os.fdopen(write_end, "w") as pipe:
        stream = SafeStream(pipe)
        stream.write("to nobody\n")
        stream.flush()
        assert stream.gone
        assert os.path.samefile(f"/proc/self/fd/{write_end}", os.devnull)
        stream.write("still nobody\n")
        stream.flush()
