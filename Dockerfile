# yieldshell over streamable HTTP in a workspace container.
#
#   docker build -t yieldshell .
#   openssl rand -hex 32 > token
#   docker run -p 8080:8080 -v "$PWD/token:/run/secrets/yieldshell-token:ro" yieldshell
#
# Clients connect to http://HOST:8080/mcp with "Authorization: Bearer TOKEN".
# GET /healthz needs no token; GET /metrics (Prometheus) does. Compose,
# Kubernetes, the token file's modes and another port: docs/deploy.md.
#
# Image names are fully qualified, so podman (which refuses short names
# without a registries.conf) builds it as docker does.

FROM docker.io/library/golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context includes .git, so the binary records its commit
# (yieldshell --version); without it the version is "(devel)".
RUN CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o /out/yieldshell ./cmd/yieldshell

FROM docker.io/library/debian:bookworm-slim
# A real shell and the tools an agent expects to find.
RUN apt-get update && apt-get install -y --no-install-recommends \
        bash ca-certificates curl diffutils file findutils git grep jq less \
        make openssh-client patch procps python3 ripgrep sed tini unzip vim-tiny wget xz-utils zip \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --shell /bin/bash agent \
    && mkdir /workspace && chown agent:agent /workspace
COPY --from=build /out/yieldshell /usr/local/bin/yieldshell
USER agent
WORKDIR /workspace
# YIELDSHELL_HTTP_ADDR is where the server listens and what the health
# check asks: change the port there (-e YIELDSHELL_HTTP_ADDR=0.0.0.0:9000),
# not with --http, and the check follows.
ENV SHELL=/bin/bash \
    YIELDSHELL_HTTP_ADDR=0.0.0.0:8080 \
    YIELDSHELL_HTTP_TOKEN_FILE=/run/secrets/yieldshell-token \
    YIELDSHELL_DEFAULT_CWD=/workspace
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD ["yieldshell", "healthcheck"]
# tini is PID 1 and passes SIGTERM on; yieldshell then ends every process.
ENTRYPOINT ["tini", "--", "yieldshell"]
