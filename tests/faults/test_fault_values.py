"""Small value parsers: durations, percentages, gRPC codes, counts, booleans."""
import pytest

from fakecri.faults import FaultSpecError, parse_duration, parse_percent
from fakecri.faults.values import parse_bool, parse_code, parse_count


@pytest.mark.parametrize("text, seconds", [
    ("200ms", 0.2), ("1.5s", 1.5), ("2m", 120.0), ("1m30s", 90.0), ("250us", 250e-6),
    ("250µs", 250e-6), ("10ns", 1e-8), ("1h", 3600.0), ("3", 3.0), ("0", 0.0), (" 50ms ", 0.05),
    (".5s", 0.5),
])
def test_parse_duration_accepts(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "ms", "fast", "-1s", "1x", "1s2", "1 s", "1.2.3s"])
def test_parse_duration_rejects(text):
    with pytest.raises(FaultSpecError, match="not a duration"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["1" + "0" * 400, "1" + "0" * 400 + "s", "876600h1s", "36501d"])
def test_parse_duration_refuses_more_than_a_hundred_years(text):
    with pytest.raises(FaultSpecError, match="longer than a hundred years"):
        parse_duration(text)


@pytest.mark.parametrize("text, p", [("5%", 0.05), ("0.05", 0.05), ("100%", 1.0), ("1", 1.0),
                                      ("0", 0.0), ("12.5%", 0.125)])
def test_parse_percent_accepts(text, p):
    assert parse_percent(text) == pytest.approx(p)


def test_parse_percent_rejects_bare_numbers_over_one_with_a_hint():
    with pytest.raises(FaultSpecError, match="write 5% if you meant 5 percent"):
        parse_percent("5")


@pytest.mark.parametrize("text, match", [("150%", "more than 100%"), ("-1%", "between 0% and 100%"),
                                         ("lots", "not a probability"), ("nan", "between")])
def test_parse_percent_rejects(text, match):
    with pytest.raises(FaultSpecError, match=match):
        parse_percent(text)


@pytest.mark.parametrize("text, code", [("UNAVAILABLE", "UNAVAILABLE"), ("unavailable", "UNAVAILABLE"),
                                        ("14", "UNAVAILABLE"), ("not-found", "NOT_FOUND"),
                                        ("Canceled", "CANCELLED"), ("0", "OK")])
def test_parse_code(text, code):
    assert parse_code(text) == code


def test_parse_code_suggests_the_near_miss():
    with pytest.raises(FaultSpecError, match="did you mean UNAVAILABLE"):
        parse_code("UNAVAILBLE")


def test_parse_count_and_bool():
    assert parse_count("3") == 3
    assert parse_count("0") == 0
    with pytest.raises(FaultSpecError, match="at least 1"):
        parse_count("0", minimum=1)
    with pytest.raises(FaultSpecError, match="whole number"):
        parse_count("2.5")
    assert parse_bool("Yes") is True and parse_bool("off") is False
    with pytest.raises(FaultSpecError, match="boolean"):
        parse_bool("maybe")
