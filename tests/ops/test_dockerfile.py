"""What can be checked of the Dockerfile without Docker: it parses, and it runs
commands the installed package really provides."""
import json
import shlex
import tomllib
from pathlib import Path, PurePosixPath

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTIONS = {
    "FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
    "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "MAINTAINER",
}


def parse_dockerfile(text):
    """(INSTRUCTION, argument text) pairs: comments dropped, continuations joined."""
    out, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if not full:
            continue
        word, _, rest = full.partition(" ")
        if word.upper() not in INSTRUCTIONS:
            raise ValueError(f"unknown instruction {word!r} in line {raw!r}")
        out.append((word.upper(), rest.strip()))
    if pending:
        raise ValueError("the Dockerfile ends inside a line continuation")
    return out


def exec_form(args):
    """A JSON-array (exec form) argument list; fail on the shell form."""
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), args
    return value


def split_stages(instructions):
    stages = []
    for word, args in instructions:
        if word == "FROM":
            stages.append({"from": args, "body": []})
        elif stages:
            stages[-1]["body"].append((word, args))
    return stages


@pytest.fixture(scope="module")
def dockerfile():
    return parse_dockerfile((ROOT / "Dockerfile").read_text())


@pytest.fixture(scope="module")
def final(dockerfile):
    return dict(split_stages(dockerfile)[-1]["body"])


def test_parser_rejects_nonsense():
    with pytest.raises(ValueError):
        parse_dockerfile("FROM x\nBOGUS y\n")
    with pytest.raises(ValueError):
        parse_dockerfile("FROM x\nRUN a \\\n")
    assert parse_dockerfile("# c\nFROM a AS b\nRUN x \\\n  # note\n  && y\n") == [("FROM", "a AS b"), ("RUN", "x && y")]


def test_multi_stage_from_slim_python(dockerfile):
    stages = split_stages(dockerfile)
    assert len(stages) >= 2
    names = []
    for stage in stages:
        image, *rest = stage["from"].split()
        assert image.startswith("python:") and image.endswith("-slim"), image
        if rest:
            assert rest[0].upper() == "AS"
            names.append(rest[1])
    for word, args in stages[-1]["body"]:
        if word == "COPY" and args.startswith("--from="):
            assert args.split()[0].split("=", 1)[1] in names[:-1]


def test_runs_as_a_non_root_user(final):
    user = final["USER"].split(":")[0]
    assert user not in ("root", "0") and user


def test_socket_lives_on_the_run_fakecri_volume(final):
    volumes = exec_form(final["VOLUME"]) if final["VOLUME"].startswith("[") else final["VOLUME"].split()
    assert "/run/fakecri" in volumes
    cmd = exec_form(final["CMD"])
    socket = cmd[cmd.index("--socket") + 1]
    assert PurePosixPath(socket).parent == PurePosixPath("/run/fakecri")


def test_entrypoint_and_healthcheck_use_the_fakecri_script(final):
    assert exec_form(final["ENTRYPOINT"]) == ["fakecri", "serve"]
    options, _, check = final["HEALTHCHECK"].partition("CMD ")
    assert "--interval=" in options and "--timeout=" in options
    health = exec_form(check)
    assert health[:2] == ["fakecri", "health"]
    cmd = exec_form(final["CMD"])
    assert health[health.index("--socket") + 1] == cmd[cmd.index("--socket") + 1]


def test_fakecri_is_a_declared_console_script_with_those_commands(final):
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, attr = scripts["fakecri"].partition(":")
    assert (module, attr) == ("fakecri.cli", "main")
    from fakecri.cli import main

    runner = CliRunner()
    entry = exec_form(final["ENTRYPOINT"])[1:] + exec_form(final["CMD"])
    health = exec_form(final["HEALTHCHECK"].partition("CMD ")[2])[1:]
    for argv in (entry, health):
        help_out = runner.invoke(main, [argv[0], "--help"])
        assert help_out.exit_code == 0, help_out.output
        for flag in (a for a in argv[1:] if a.startswith("--")):
            assert flag in help_out.output, f"{argv[0]} has no {flag}"


def test_dockerignore_keeps_what_the_build_needs():
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert {".git", ".venv"} <= ignored
    assert not {"fakecri", "pyproject.toml", "README.md", "proto"} & ignored


def test_build_stage_installs_the_package(dockerfile):
    runs = " ".join(args for word, args in split_stages(dockerfile)[0]["body"] if word == "RUN")
    assert "pip install ." in runs
    assert any(shlex.split(args)[0] == "." for word, args in split_stages(dockerfile)[0]["body"] if word == "COPY")
