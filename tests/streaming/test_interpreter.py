"""The reference backend's command interpreter answers bad arguments the way a shell does."""
import asyncio

import pytest

from fakecri.server.streaming.interpreter import run_argv


def run(argv):
    out, err = [], []

    async def w_out(b):
        out.append(b)

    async def w_err(b):
        err.append(b)

    code = asyncio.run(run_argv(argv, None, w_out, w_err))
    return code, b"".join(out), b"".join(err)


@pytest.mark.parametrize("interval", ["nan", "inf", "-1", "soon"])
def test_sleep_refuses_an_interval_that_is_not_a_finite_number(interval):
    code, _, err = run(["sleep", interval])
    assert code == 1 and b"invalid time interval" in err


def test_exit_codes_wrap_and_a_bad_argument_is_2():
    assert run(["exit", "259"])[0] == 3
    code, _, err = run(["sh", "-c", "exit nope"])
    assert code == 2 and b"numeric argument required" in err
    assert run(["sleep", "0.01"])[0] == 0
