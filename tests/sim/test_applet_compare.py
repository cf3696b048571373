"""cmp and diff judged against the real busybox (the host's, when installed), and what they refuse."""
from __future__ import annotations

import pytest
from helpers.awk_oracle import BUSYBOX
from helpers.shell_oracle import fake_sh, real_sh

FILES = "printf 'a\\nb\\n' > x; printf 'a\\nc\\n' > y; printf 'a\\n' > z; " \
        "printf 'a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\n' > p; " \
        "printf 'a\\nX\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\n' > q; "
SCRIPTS = [
    "cmp x x; echo $?; cmp x y; echo $?; cmp -s x y; echo $?", "cmp -l x y; echo $?; cmp x z; echo $?; cmp z x",
    "cmp x nope; echo $?; cat x | cmp - y; echo $?", "diff x x; echo $?; diff x y; echo $?; diff -u x z; echo $?",
    "diff p q; echo $?; diff q p; diff -q x y; echo $?", "diff x nope; echo $?", ": > e; diff e x; diff x e; echo $?",
]


@pytest.mark.skipif(BUSYBOX is None, reason="busybox (the oracle) is not installed on this host")
@pytest.mark.parametrize("script", SCRIPTS)
def test_cmp_and_diff_as_busybox(script):
    assert fake_sh(FILES + script) == real_sh(FILES + script)


def test_what_diff_does_not_model_is_refused():
    out, err, code = fake_sh("mkdir d; diff d d; echo $?; printf a > w; echo b > x; diff w x 2>&1; echo $?")[:3]
    assert "diff: directories: not modelled by fakecri" in err + out
    assert "diff: a file without a final newline: not modelled by fakecri" in out
