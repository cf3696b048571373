"""The Dockerfile: what can be checked without Docker (it parses, it runs commands the
installed package really provides, the serve command and the HEALTHCHECK take the socket
from one setting, the base image and the dependencies are pinned), and with Docker, when
a daemon answers, a real build whose HEALTHCHECK reports healthy."""
import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
import uuid
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


def build_args(dockerfile):
    """ARG defaults declared before the first FROM."""
    out = {}
    for word, args in dockerfile:
        if word == "FROM":
            break
        if word == "ARG":
            name, _, default = args.partition("=")
            out[name] = default
    return out


def base_image(dockerfile, stage):
    image = stage["from"].split()[0]
    return re.sub(r"\$\{(\w+)\}", lambda m: build_args(dockerfile)[m.group(1)], image)


def final_env(final_stage_body):
    env = {}
    for word, args in final_stage_body:
        if word == "ENV":
            for item in shlex.split(args):
                key, _, value = item.partition("=")
                env[key] = value
    return env


@pytest.fixture(scope="module")
def env(dockerfile):
    return final_env(split_stages(dockerfile)[-1]["body"])


def test_multi_stage_from_one_pinned_slim_python(dockerfile):
    stages = split_stages(dockerfile)
    assert len(stages) >= 2
    names = []
    for stage in stages:
        image = base_image(dockerfile, stage)
        # An exact release (python:3.11.7-slim-bookworm), optionally with its digest:
        # never a moving tag such as python:3.11-slim or python:slim.
        assert re.fullmatch(r"python:3\.\d+\.\d+-slim-[a-z]+(@sha256:[0-9a-f]{64})?", image), image
        rest = stage["from"].split()[1:]
        if rest:
            assert rest[0].upper() == "AS"
            names.append(rest[1])
    assert len({base_image(dockerfile, stage) for stage in stages}) == 1
    for word, args in stages[-1]["body"]:
        if word == "COPY" and args.startswith("--from="):
            assert args.split()[0].split("=", 1)[1] in names[:-1]


def test_runs_as_uid_and_gid_10001(dockerfile, final):
    assert final["USER"] == "10001:10001"
    runs = " ".join(args for word, args in split_stages(dockerfile)[-1]["body"] if word == "RUN")
    assert "--gid 10001 fakecri" in runs and "--uid 10001" in runs
    assert "chown fakecri:fakecri /run/fakecri" in runs


def test_one_setting_names_the_socket_for_serve_and_healthcheck(final, env):
    socket = env["FAKECRI_SOCKET"]
    volumes = exec_form(final["VOLUME"]) if final["VOLUME"].startswith("[") else final["VOLUME"].split()
    assert PurePosixPath(socket).parent == PurePosixPath("/run/fakecri") and "/run/fakecri" in volumes
    assert exec_form(final["ENTRYPOINT"]) == ["fakecri", "serve"]
    options, _, check = final["HEALTHCHECK"].partition("CMD ")
    assert "--interval=" in options and "--timeout=" in options
    health = exec_form(check)
    assert health[:2] == ["fakecri", "health"]
    # Neither names the socket itself, so both follow FAKECRI_SOCKET (`docker run -e`).
    for argv in (exec_form(final["CMD"]), health):
        assert not any(a == "--socket" or a.startswith("--socket=") or a == "--endpoint" for a in argv), argv


def test_serve_and_health_both_read_fakecri_socket():
    """What the image relies on: with FAKECRI_SOCKET set and no flag, `fakecri serve`
    binds that path and `fakecri health` asks that same path."""
    import signal
    import sys
    import time

    from fakecri.server.process.app import short_socket_path

    socket = short_socket_path("image.sock")
    env = {**os.environ, "FAKECRI_SOCKET": socket}
    fakecri = str(Path(sys.executable).with_name("fakecri"))
    serve = subprocess.Popen([fakecri, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(socket):
            assert serve.poll() is None, serve.stderr.read().decode()
            assert time.monotonic() < deadline, "fakecri serve did not create $FAKECRI_SOCKET within 30 s"
            time.sleep(0.05)
        health = subprocess.run([fakecri, "health"], env=env, capture_output=True, text=True, timeout=30)
        assert health.returncode == 0, health.stderr
        assert health.stdout.strip() == "SERVING"
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=30)
    # The server is gone: the same command now fails, so it was asking that socket.
    gone = subprocess.run([fakecri, "health", "--timeout", "1"], env=env, capture_output=True, text=True, timeout=30)
    assert gone.returncode != 0


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


def test_build_installs_from_the_hash_pinned_locks(dockerfile):
    runs = [args for word, args in split_stages(dockerfile)[0]["body"] if word == "RUN"]
    joined = " ".join(runs)
    for lock in ("requirements.lock", "requirements-build.lock"):
        no_deps = "--no-deps " if lock == "requirements.lock" else ""
        assert f"--require-hashes --only-binary=:all: {no_deps}-r {lock}" in joined
    # The project itself is built from the copied source and installed without
    # resolving anything further, so nothing unpinned gets in.
    assert "--no-deps --no-build-isolation" in joined and "pip install --no-deps /src/dist/" in joined
    assert "pip check" in joined
    copies = [shlex.split(args) for word, args in split_stages(dockerfile)[0]["body"] if word == "COPY"]
    assert ["requirements-build.lock", "requirements.lock", "./"] in copies and [".", "."] in copies


def read_lock(name):
    """{normalized name: (version, [sha256...])} of a `pip --require-hashes` file."""
    text = (ROOT / name).read_text().replace("\\\n", " ")
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pin, *hashes = line.split()
        name_, _, version = pin.partition("==")
        assert version, f"{name}: {pin} is not pinned with =="
        assert hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes), pin
        out[canonical(name_)] = (version, hashes)
    return out


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def test_runtime_lock_satisfies_pyproject_and_is_closed():
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement

    lock = read_lock("requirements.lock")
    marker_env = {"python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
                  "platform_system": "Linux", "platform_machine": "x86_64", "implementation_name": "cpython",
                  "platform_python_implementation": "CPython", "os_name": "posix", "extra": ""}
    for dep in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        req = Requirement(dep)
        if req.marker and not req.marker.evaluate(marker_env):
            continue  # not for the image's Python
        assert canonical(req.name) in lock, f"{req.name} is a dependency but not in requirements.lock"
        assert req.specifier.contains(lock[canonical(req.name)][0]), (dep, lock[canonical(req.name)][0])
    # Only what `fakecri serve` needs: the image carries no test tools.
    assert not {"pytest", "hypothesis", "rich"} & set(lock)
    # What each locked package needs (as installed here, at the locked version) is locked too.
    checked = 0
    for name, (version, _) in lock.items():
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            continue
        if dist.version != version:
            continue
        checked += 1
        for raw in dist.requires or []:
            req = Requirement(raw)
            if req.marker and not req.marker.evaluate(marker_env):
                continue
            assert canonical(req.name) in lock, f"{name} needs {req.name}, missing from requirements.lock"
    assert checked >= len(lock) // 2, "too few locked packages installed here to check the closure"
    build = read_lock("requirements-build.lock")
    assert "setuptools" in build


DOCKER = shutil.which("docker")


def docker_daemon_answers():
    if not DOCKER:
        return False
    return subprocess.run([DOCKER, "info"], capture_output=True, timeout=30).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not docker_daemon_answers(), reason="no Docker daemon answers `docker info` here")
def test_image_builds_and_reports_healthy():
    tag = f"fakecri-test:{uuid.uuid4().hex[:8]}"
    subprocess.run([DOCKER, "build", "-t", tag, str(ROOT)], check=True, timeout=900)
    name = f"fakecri-test-{uuid.uuid4().hex[:8]}"
    try:
        subprocess.run([DOCKER, "run", "-d", "--name", name, "-e", "FAKECRI_SOCKET=/run/fakecri/other.sock", tag],
                       check=True, timeout=60)
        status = ""
        for _ in range(60):
            status = subprocess.run([DOCKER, "inspect", "-f", "{{.State.Health.Status}}", name],
                                    capture_output=True, text=True, timeout=30).stdout.strip()
            if status in ("healthy", "unhealthy"):
                break
            subprocess.run(["sleep", "1"], check=True)
        assert status == "healthy"
        ls = subprocess.run([DOCKER, "exec", name, "stat", "-c", "%u:%g %a", "/run/fakecri/other.sock"],
                            capture_output=True, text=True, timeout=30)
        assert ls.stdout.strip() == "10001:10001 660"
    finally:
        subprocess.run([DOCKER, "rm", "-f", name], capture_output=True, timeout=60)
        subprocess.run([DOCKER, "rmi", "-f", tag], capture_output=True, timeout=60)


def dockerignore_filter(root):
    """A copytree ignore function for the simple patterns .dockerignore uses."""
    import fnmatch

    patterns = [p.strip() for p in (root / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]

    def ignore(directory, names):
        rel_dir = Path(directory).relative_to(root)
        out = set()
        for name in names:
            rel = (rel_dir / name).as_posix()
            for pattern in patterns:
                bare = pattern.removeprefix("**/")
                if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, bare):
                    out.add(name)
        return out

    return ignore


@pytest.mark.slow
def test_build_stage_runs_here_from_the_locks(tmp_path):
    """The build stage's RUN lines, run as written on this machine (paths under /opt and
    /src moved into a temporary directory, `python` being this Python 3.11): the locks
    install with their hashes and the wheel builds and installs. Where Docker is not
    available this is the closest check of `docker build` there is."""
    import sys

    if sys.version_info[:2] != (3, 11):
        pytest.skip("the locks are for the image's Python 3.11")
    stages = split_stages(parse_dockerfile((ROOT / "Dockerfile").read_text()))
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=dockerignore_filter(ROOT))
    moves = {"/opt/build": str(tmp_path / "opt-build"), "/opt/fakecri": str(tmp_path / "opt-fakecri"),
             "/src/dist": str(tmp_path / "dist")}
    pybin = tmp_path / "bin"
    pybin.mkdir()
    (pybin / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": f"{pybin}{os.pathsep}{os.environ['PATH']}", "PIP_NO_CACHE_DIR": "1",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    for word, args in stages[0]["body"]:
        if word != "RUN":
            continue
        for old, new in moves.items():
            args = args.replace(old, new)
        done = subprocess.run(["sh", "-ec", args], cwd=src, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"RUN {args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    fakecri = tmp_path / "opt-fakecri" / "bin" / "fakecri"
    version = subprocess.run([str(fakecri), "version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and "0.1.0" in version.stdout, version.stdout + version.stderr
