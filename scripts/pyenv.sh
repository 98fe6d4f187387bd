#!/usr/bin/env bash
# Creates (or refreshes) the Python virtual environment of the outside readers
# in .venv and prints its python path. Idempotent: a venv whose requirements
# have not changed is reused.
set -euo pipefail
# With an argument NAME: the venv .venv-NAME of interop/requirements-NAME.txt
# (v3: DuckDB 1.5, the reader of format 3 tables).
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-}
venv="$root/.venv${name:+-$name}"
req="$root/interop/requirements${name:+-$name}.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
