#!/usr/bin/env bash
# Fetch the pieces of OpenClaw 2026.4.12's compiled dist/ that the oracle tests lift functions from
# (the npm tarball, nothing installed or run from it but those files). Usage: install_openclaw_dist.sh DIR
set -euo pipefail
dest=$1
version=2026.4.12
[ -f "$dest/.openclaw-$version" ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "openclaw@$version" >/dev/null
mkdir -p "$dest"
names=(anthropic-cache-control-payload anthropic-payload-policy cjk-chars extra-params glob-pattern
       model-context-tokens parse-duration pi-embedded-helpers prompt-cache-stability provider-attribution
       provider-id provider-model-shared session-transcript-repair string-coerce system-prompt-cache-boundary version)
patterns=(package/package.json)
for n in "${names[@]}"; do patterns+=("package/dist/$n-*.js"); done
tar xzf "openclaw-$version.tgz" --wildcards --no-anchored -C "$tmp" "${patterns[@]}"
cp "$tmp"/package/dist/*.js "$tmp/package/package.json" "$dest/"
touch "$dest/.openclaw-$version"
