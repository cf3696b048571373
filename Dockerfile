# syntax=docker/dockerfile:1
# fakecri as a container: build the wheel and a virtualenv in one stage, run it from a
# slim, non-root image in the next. The CRI socket lives on the /run/fakecri volume so
# a kubelet (or crictl) in another container can share it.
#
#   docker build -t fakecri .
#   docker run --rm -v fakecri-run:/run/fakecri fakecri
#   docker run --rm -v fakecri-run:/run/fakecri fakecri --seed 7
#   docker run --rm -v fakecri-run:/run/fakecri -e FAKECRI_SOCKET=/run/fakecri/cri.sock fakecri
#
# Two builds of one commit install the same bytes: the base image is pinned to an exact
# Python release, and every Python package comes from requirements.lock or
# requirements-build.lock with its sha256 (scripts/lock_image_deps.py writes both).
# The release tag still moves when Debian security fixes are folded in; to freeze the
# base completely, append its digest:
#   docker buildx imagetools inspect python:3.11.7-slim-bookworm   # prints sha256:...
#   docker build --build-arg BASE=python:3.11.7-slim-bookworm@sha256:... -t fakecri .
#
# Who may connect: fakecri runs as uid 10001, gid 10001 (group `fakecri`) and creates
# the socket owned by them with mode 0660. A client container connects when it runs as
# root, as uid 10001, or with gid 10001 among its groups (`docker run --group-add 10001`,
# or `supplementalGroups: [10001]` in a pod). To hand the socket to another group, give
# fakecri that group too and name it: `--group-add 2000 -e FAKECRI_SOCKET_GROUP=2000`
# (the same as `fakecri serve --socket-group 2000`).

ARG BASE=python:3.11.7-slim-bookworm

FROM ${BASE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY requirements-build.lock requirements.lock ./
RUN python -m venv /opt/build \
 && /opt/build/bin/pip install --require-hashes --only-binary=:all: -r requirements-build.lock \
 && python -m venv /opt/fakecri \
 && /opt/fakecri/bin/pip install --require-hashes --only-binary=:all: --no-deps -r requirements.lock
COPY . .
RUN /opt/build/bin/pip wheel --no-deps --no-build-isolation -w /src/dist . \
 && /opt/fakecri/bin/pip install --no-deps /src/dist/fakecri-*.whl \
 && /opt/fakecri/bin/pip check \
 && /opt/fakecri/bin/fakecri --help > /dev/null

FROM ${BASE} AS runtime
LABEL org.opencontainers.image.title="fakecri" \
      org.opencontainers.image.description="A fake Kubernetes CRI runtime for conformance and fault testing" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 fakecri \
 && useradd --system --uid 10001 --gid fakecri --no-create-home --home-dir /var/lib/fakecri \
        --shell /usr/sbin/nologin fakecri \
 && mkdir -p /run/fakecri /var/lib/fakecri \
 && chown fakecri:fakecri /run/fakecri /var/lib/fakecri \
 && chmod 0755 /run/fakecri
# The same path as in the build stage: the venv's scripts point at it.
COPY --from=build /opt/fakecri /opt/fakecri
# FAKECRI_SOCKET is the one place the socket path is set: `fakecri serve` and
# `fakecri health` (the HEALTHCHECK) both read it, so changing it with `-e` moves both.
ENV PATH=/opt/fakecri/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    FAKECRI_SOCKET=/run/fakecri/fakecri.sock
WORKDIR /var/lib/fakecri
USER 10001:10001
VOLUME ["/run/fakecri"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
    CMD ["fakecri", "health"]
ENTRYPOINT ["fakecri", "serve"]
CMD []
