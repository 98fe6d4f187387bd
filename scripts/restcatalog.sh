#!/usr/bin/env bash
# A local Iceberg REST catalog for the tests: Apache Iceberg's own
# RESTCatalogServlet and RESTCatalogAdapter (iceberg-core 1.10.0 tests jar,
# iceberg-open-api 1.10.0 test fixtures) over a JDBC catalog in SQLite, in a
# Jetty 11 that interop/restcatalog's Launcher binds to 127.0.0.1 only, on a
# free port. The launcher is built once into the gitignored .cache/restcatalog
# (Maven copies the jars, javac compiles the two classes; rebuilt when the pom
# or the Java sources change). Needs java 17 and mvn.
#
#   eval "$(bash scripts/restcatalog.sh start)"        # file:// warehouse
#   eval "$(bash scripts/restcatalog.sh start --s3)"   # s3:// warehouse on the
#        # server of `eval "$(bash scripts/s3server.sh start)"` (its AWS_* and
#        # TIMELAKE_S3_BUCKET must be exported)
#   trap 'bash scripts/restcatalog.sh stop "$TIMELAKE_CATALOG_DIR"' EXIT
#
# start prints shell exports: TIMELAKE_CATALOG_URI (http://127.0.0.1:PORT),
# TIMELAKE_CATALOG_WAREHOUSE (file:///…/warehouse, or
# s3://$TIMELAKE_S3_BUCKET/catalog-wh/<id>: one prefix per server, so servers
# sharing a bucket do not share tables) and TIMELAKE_CATALOG_DIR (what stop
# needs: pid, log, the SQLite database, the file warehouse). stop kills that
# server only and removes the directory. `build` only builds; `check` exits 3
# if the build is missing or stale (installs nothing).
#
# The launcher's test switches, read from the environment of start:
#   TIMELAKE_CATALOG_TEST_TOKEN=T      /v1/ requests need "Authorization: Bearer T"
#   TIMELAKE_CATALOG_TEST_CLIENT=id:s  POST /v1/oauth/tokens gives T for id:s only
#   TIMELAKE_CATALOG_VEND_S3=1         load/create-table config carries the
#                                      server's S3 settings (credential vending)
# Any CATALOG_* variable also reaches the catalog as a property (see Launcher).
#
# Start-up, measured (warm build, this machine): the JVM answers GET /v1/config
# about 0.7 s after launch; `start` takes 0.75-0.9 s in all, `stop` 0.35 s. The first build
# (Maven fetching ~45 jars) takes ~10-40 s; an up-to-date check is instant.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
src="$repo/interop/restcatalog"
cache="$repo/.cache/restcatalog"

want_hash() {
	(cd "$src" && find pom.xml src -type f -name '*.java' -o -name pom.xml | sort | xargs sha256sum) | sha256sum | cut -d' ' -f1
}

built() { [ "$(cat "$cache/stamp" 2>/dev/null)" = "$(want_hash)" ] && [ -d "$cache/classes" ] && [ -d "$cache/lib" ]; }

build() {
	if built; then return; fi
	command -v java >/dev/null || { echo "restcatalog: java not found (Java 17 is needed)" >&2; exit 3; }
	command -v mvn >/dev/null || { echo "restcatalog: mvn not found" >&2; exit 3; }
	echo "restcatalog: building the launcher into $cache (Maven fetches the jars once)" >&2
	tmp=$(mktemp -d "$repo/.cache/restcatalog.build.XXXXXX" 2>/dev/null || { mkdir -p "$repo/.cache"; mktemp -d "$repo/.cache/restcatalog.build.XXXXXX"; })
	(cd "$src" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/lib") >&2
	javac --release 17 -nowarn -cp "$tmp/lib/*" -d "$tmp/classes" $(find "$src/src" -name '*.java') >&2
	want_hash >"$tmp/stamp"
	rm -rf "$cache"
	mv "$tmp" "$cache"
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start() {
	s3=
	for a in "$@"; do
		case "$a" in
		--s3) s3=1 ;;
		*) echo "restcatalog: unknown option $a" >&2; exit 2 ;;
		esac
	done
	build
	dir=$(mktemp -d "${TMPDIR:-/tmp}/timelake-catalog.XXXXXX")
	if [ -n "$s3" ]; then
		: "${AWS_ENDPOINT_URL:?--s3 needs the S3 server: eval \"\$(bash scripts/s3server.sh start)\"}" "${TIMELAKE_S3_BUCKET:?}" "${AWS_ACCESS_KEY_ID:?}" "${AWS_SECRET_ACCESS_KEY:?}"
		warehouse="s3://$TIMELAKE_S3_BUCKET/catalog-wh/${dir##*.}"
		export CATALOG_IO__IMPL=org.apache.iceberg.aws.s3.S3FileIO
		export CATALOG_S3_ENDPOINT="$AWS_ENDPOINT_URL"
		export CATALOG_S3_ACCESS__KEY__ID="$AWS_ACCESS_KEY_ID"
		export CATALOG_S3_SECRET__ACCESS__KEY="$AWS_SECRET_ACCESS_KEY"
		export CATALOG_S3_PATH__STYLE__ACCESS=true
		export CATALOG_CLIENT_REGION="${AWS_REGION:-us-east-1}"
	else
		mkdir "$dir/warehouse"
		warehouse="file://$dir/warehouse"
	fi
	export CATALOG_URI="jdbc:sqlite:$dir/catalog.db"
	export CATALOG_WAREHOUSE="$warehouse"
	for try in 1 2 3; do
		port=$(free_port)
		# C1 only and the serial collector: this server lives for one test
		# group and serves small JSON; start-up is what costs.
		CATALOG_REST_PORT=$port java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k \
			-cp "$cache/classes:$cache/lib/*" dev.timelake.restcatalog.Launcher >"$dir/log" 2>&1 &
		echo $! >"$dir/pid"
		code=000
		for _ in $(seq 300); do
			code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/config" 2>/dev/null) || code=000
			# 401: up, with the test token switched on.
			if [ "$code" = 200 ] || [ "$code" = 401 ]; then break; fi
			if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then break; fi
			sleep 0.05
		done
		if [ "$code" = 200 ] || [ "$code" = 401 ]; then
			cat <<EOF2
export TIMELAKE_CATALOG_DIR='$dir'
export TIMELAKE_CATALOG_URI='http://127.0.0.1:$port'
export TIMELAKE_CATALOG_WAREHOUSE='$warehouse'
EOF2
			return
		fi
		kill "$(cat "$dir/pid")" 2>/dev/null || true
		echo "restcatalog: attempt $try on port $port failed:" >&2
		tail -20 "$dir/log" >&2 || true
	done
	rm -rf "$dir"
	exit 1
}

alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

stop() {
	dir="${1:?usage: restcatalog.sh stop DIR}"
	case "$dir" in */timelake-catalog.*) ;; *) echo "restcatalog: $dir is not a catalog directory" >&2; exit 2 ;; esac
	if [ -f "$dir/pid" ]; then
		pid=$(cat "$dir/pid")
		kill "$pid" 2>/dev/null || true
		# A server started from an exited shell is reaped late: a zombie is gone.
		for _ in $(seq 100); do alive "$pid" || break; sleep 0.02; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}

case "${1:-}" in
build) build ;;
check) built || exit 3 ;;
start) shift; start "$@" ;;
stop) stop "${2:-}" ;;
*) echo "usage: $0 build|check|start [--s3]|stop DIR" >&2; exit 2 ;;
esac
