#!/usr/bin/env bash
# Type-checks @timelake/client as a user's project sees it: the package
# packed with `npm pack` (its "files" and "exports" as published) and
# unpacked into a temporary project's node_modules, then `tsc --noEmit` over
#   - client/test/types/*.ts, consumers of every entry under each
#     resolution: node16 (the "node" condition: localStore and the Node
#     entry's types), bundler with customConditions ["node"], bundler with
#     ["workerd"], and bundler alone (a browser: no localStore);
#   - every ```ts block of client/README.md, each a module of its own, with
#     client/test/types/readme-env.d.ts declaring what the snippets take
#     from their surroundings (env, rows, table, the Workers types).
# Needs the built client (scripts/build-client.sh); test-client.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/../client"
[ -f dist/src/index.d.ts ] || { echo "test-client-types: build the client first (scripts/build-client.sh)" >&2; exit 1; }
tsc=$PWD/node_modules/.bin/tsc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== client types: npm pack, unpacked into a temporary project"
npm pack --silent --pack-destination "$tmp" >/dev/null
proj=$tmp/proj
mkdir -p "$proj/node_modules/@timelake/client" "$proj/readme"
tar -xzf "$tmp"/timelake-client-*.tgz -C "$proj/node_modules/@timelake/client" --strip-components=1
ln -s "$PWD/node_modules/@types" "$proj/node_modules/@types" # @types/node, for the Node entry
echo '{ "name": "consumer", "private": true, "type": "module" }' >"$proj/package.json"
cp test/types/*.ts "$proj/"

# The README's ```ts blocks, one module each (export {} makes a block
# without imports a module too, so their declarations do not collide).
awk -v dir="$proj/readme" '
  /^```ts[[:space:]]*$/ { n++; f = sprintf("%s/readme-%d.ts", dir, n); inblock = 1; print "// client/README.md, block " n > f; next }
  /^```/ && inblock    { print "export {};" >> f; close(f); inblock = 0; next }
  inblock              { print >> f }
' README.md
blocks=$(ls "$proj/readme" | wc -l)
[ "$blocks" -gt 0 ] || { echo "test-client-types: no \`\`\`ts block in client/README.md" >&2; exit 1; }

check() { # check NAME RESOLUTION CONDITIONS FILES…
  local name=$1 res=$2 cond=$3
  shift 3
  local module=node16
  [ "$res" = bundler ] && module=esnext
  local files
  files=$(printf '"%s",' "$@")
  cat >"$proj/tsconfig.$name.json" <<EOF
{
  "compilerOptions": {
    "target": "es2022", "module": "$module", "moduleResolution": "$res", "customConditions": [$cond],
    "lib": ["es2024", "dom"], "types": ["node"], "strict": true, "noEmit": true, "skipLibCheck": false
  },
  "files": [${files%,}]
}
EOF
  echo "-- tsc --noEmit: $name (moduleResolution $res${cond:+, conditions $cond})"
  (cd "$proj" && "$tsc" -p "tsconfig.$name.json")
}
check node16 node16 "" node.ts workers.ts
check bundler-node bundler '"node"' node.ts workers.ts
check bundler-workerd bundler '"workerd"' workerd.ts workers.ts
check bundler-browser bundler "" browser.ts
# The README: Node's resolution, as its examples run in Node and Workers.
check readme node16 "" readme-env.d.ts $(cd "$proj" && echo readme/*.ts)
echo "client types: the packed package type-checks under node16 and bundler resolution; $blocks README blocks compile"
