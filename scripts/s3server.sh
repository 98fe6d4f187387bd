#!/usr/bin/env bash
# A local S3-compatible server for the tests: versitygw (v1.8.0, built once
# into ./bin with `go install`) with its posix backend over a temporary
# directory, listening on 127.0.0.1 only, on a free port, with fresh random
# credentials. It checks SigV4 signatures (403 on a wrong secret) and answers
# 412 to a PUT with "If-None-Match: *" on an existing key, which is what the
# stores' conditional create needs.
#
#   eval "$(bash scripts/s3server.sh start)"      # exports the variables below
#   trap 'bash scripts/s3server.sh stop "$TIMELAKE_S3_DIR"' EXIT
#
# start prints shell exports: AWS_ENDPOINT_URL, AWS_REGION (us-east-1),
# AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, TIMELAKE_S3_BUCKET (a bucket
# already created), TIMELAKE_S3_ROOT (the posix backend's directory: bucket B's
# key K is the file $TIMELAKE_S3_ROOT/B/K) and TIMELAKE_S3_DIR (what stop
# needs: the pid, the log, the data). stop kills that server only and removes
# the directory.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version=v1.8.0
bin="$repo/bin/versitygw"

build() {
	if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "mod[[:space:]]*github.com/versity/versitygw[[:space:]]*$version"; then return; fi
	echo "s3server: building versitygw $version into $repo/bin (about a minute, once)" >&2
	GOBIN="$repo/bin" go install "github.com/versity/versitygw/cmd/versitygw@$version" >&2
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

rand_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

start() {
	build
	dir=$(mktemp -d "${TMPDIR:-/tmp}/timelake-s3.XXXXXX")
	mkdir -p "$dir/data" "$dir/sidecar"
	access="TL$(rand_hex 9 | tr a-f A-F)"
	secret="$(rand_hex 20)"
	bucket="timelake-test"
	mkdir "$dir/data/$bucket"
	for try in 1 2 3 4 5; do
		port=$(free_port)
		# Loopback only; the admin API, web UI and website endpoints stay off
		# (they are off unless given a port). The sidecar directory keeps object
		# metadata where file systems lack user extended attributes.
		"$bin" --port "127.0.0.1:$port" --access "$access" --secret "$secret" --region us-east-1 --quiet \
			posix --sidecar "$dir/sidecar" "$dir/data" >"$dir/log" 2>&1 &
		echo $! >"$dir/pid"
		for _ in $(seq 100); do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
			if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then break; fi
			sleep 0.1
		done
		if kill -0 "$(cat "$dir/pid")" 2>/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			cat <<EOF
export TIMELAKE_S3_DIR='$dir'
export TIMELAKE_S3_ROOT='$dir/data'
export TIMELAKE_S3_BUCKET='$bucket'
export AWS_ENDPOINT_URL='http://127.0.0.1:$port'
export AWS_REGION='us-east-1'
export AWS_ACCESS_KEY_ID='$access'
export AWS_SECRET_ACCESS_KEY='$secret'
EOF
			return
		fi
		kill "$(cat "$dir/pid")" 2>/dev/null || true
		echo "s3server: attempt $try on port $port failed:" >&2
		tail -5 "$dir/log" >&2 || true
	done
	rm -rf "$dir"
	exit 1
}

stop() {
	dir="${1:?usage: s3server.sh stop DIR}"
	case "$dir" in */timelake-s3.*) ;; *) echo "s3server: $dir is not a server directory" >&2; exit 2 ;; esac
	if [ -f "$dir/pid" ]; then
		pid=$(cat "$dir/pid")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}

case "${1:-}" in
build) build ;;
start) start ;;
stop) stop "${2:-}" ;;
*) echo "usage: $0 build|start|stop DIR" >&2; exit 2 ;;
esac
