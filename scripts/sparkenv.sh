#!/usr/bin/env bash
# Sets up the Spark engine of the co-write tests and prints where it is, as
# shell assignments (eval-able; the Go helper parses them):
#   SPARK_PYTHON=…/.venv-spark/bin/python   pyspark 3.5 (interop/spark/requirements.txt)
#   SPARK_ICEBERG_JAR=…/.cache/spark-jars/iceberg-spark-runtime-3.5_2.12-<v>.jar
# Idempotent and cached: the venv is rebuilt only when its requirements
# change, the jar is fetched with Maven (dependency:copy, into the local
# repository then the gitignored .cache/spark-jars/) only when missing.
# Needs python3, java 17 and mvn; everything comes from the package registries.
# --check installs nothing: it prints the paths and exits 3 if either is missing
# (the Go helper then skips, unless TIMELAKE_REQUIRE_SPARK is set).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=${1:-}
iceberg_version=1.10.1
artifact="org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:$iceberg_version"

venv="$root/.venv-spark"
req="$root/interop/spark/requirements.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
jars="$root/.cache/spark-jars"
jar="$jars/iceberg-spark-runtime-3.5_2.12-$iceberg_version.jar"
if [ "$check" = --check ]; then
  echo "SPARK_PYTHON=$venv/bin/python"
  echo "SPARK_ICEBERG_JAR=$jar"
  [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -s "$jar" ] || exit 3
  exit 0
fi
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
fi

if [ ! -s "$jar" ]; then
  mkdir -p "$jars"
  # dependency:copy needs no project; the runtime jar is shaded, so no
  # transitive dependencies are wanted.
  mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$artifact" -DoutputDirectory="$jars" -Dmdep.overWriteIfNewer=true >&2
fi

echo "SPARK_PYTHON=$venv/bin/python"
echo "SPARK_ICEBERG_JAR=$jar"
