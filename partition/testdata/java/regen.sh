#!/bin/sh
# Regenerates ../java-values.tsv, package partition's golden file, from
# Iceberg's Java transforms (the iceberg-api version in pom.xml).
#
# Run by hand after changing TransformValues.java or the Iceberg version:
#
#	partition/testdata/java/regen.sh && go test ./partition -run TestJavaValues
#
# Needs java 17 and mvn (Maven reads its local cache first and fetches only
# what is missing). The Go tests never run this: they read the committed TSV,
# so an ordinary test run needs no JVM.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v mvn >/dev/null || { echo "regen.sh: mvn not found" >&2; exit 3; }
command -v javac >/dev/null || { echo "regen.sh: javac not found" >&2; exit 3; }
(cd "$here" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies \
	-DincludeScope=runtime -DoutputDirectory="$tmp/lib") >&2
javac -encoding UTF-8 -d "$tmp/classes" -cp "$tmp/lib/*" "$here/TransformValues.java"
java -cp "$tmp/classes:$tmp/lib/*" TransformValues >"$tmp/java-values.tsv"
mv "$tmp/java-values.tsv" "$here/../java-values.tsv"
echo "regen.sh: wrote $(wc -l <"$here/../java-values.tsv") lines to partition/testdata/java-values.tsv" >&2
