"""Fixtures shared by the suite's tests."""
from __future__ import annotations

import logging

import pytest
import structlog


@pytest.fixture(scope="module")
def quiet_logs():
    """structlog at WARNING for a module whose runs would log every call (a module names it in
    its `pytestmark`); the defaults come back after the module."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    yield
    structlog.reset_defaults()
