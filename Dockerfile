# syntax=docker/dockerfile:1
# fakecri as a container: build a virtualenv in one stage, run it from a slim,
# non-root image in the next. The CRI socket lives on the /run/fakecri volume so a
# kubelet (or crictl) in another container can share it.
#
#   docker build -t fakecri .
#   docker run --rm -v fakecri-run:/run/fakecri fakecri
#   docker run --rm -v fakecri-run:/run/fakecri fakecri --socket /run/fakecri/fakecri.sock --seed 7

ARG PYTHON_VERSION=3.11

FROM python:${PYTHON_VERSION}-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY . .
RUN python -m venv /opt/fakecri \
 && /opt/fakecri/bin/pip install --upgrade pip \
 && /opt/fakecri/bin/pip install . \
 && /opt/fakecri/bin/fakecri --help > /dev/null

FROM python:${PYTHON_VERSION}-slim AS runtime
LABEL org.opencontainers.image.title="fakecri" \
      org.opencontainers.image.description="A fake Kubernetes CRI runtime for conformance and fault testing" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 fakecri \
 && useradd --system --uid 10001 --gid fakecri --no-create-home --home-dir /var/lib/fakecri \
        --shell /usr/sbin/nologin fakecri \
 && mkdir -p /run/fakecri /var/lib/fakecri \
 && chown fakecri:fakecri /run/fakecri /var/lib/fakecri
# The same path as in the build stage: the venv's scripts point at it.
COPY --from=build /opt/fakecri /opt/fakecri
ENV PATH=/opt/fakecri/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /var/lib/fakecri
USER 10001:10001
VOLUME ["/run/fakecri"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
    CMD ["fakecri", "health", "--socket", "/run/fakecri/fakecri.sock"]
ENTRYPOINT ["fakecri", "serve"]
CMD ["--socket", "/run/fakecri/fakecri.sock"]
