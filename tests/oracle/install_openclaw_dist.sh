#!/usr/bin/env bash
# Fetch the pieces of OpenClaw 2026.4.12's compiled dist/ that the oracle tests lift functions from
# (the npm tarball, nothing installed or run from it but those files). Usage: install_openclaw_dist.sh DIR
set -euo pipefail
dest=$1
version=2026.4.12
names=(anthropic-cache-control-payload anthropic-payload-policy cjk-chars extra-params glob-pattern heartbeat
       model-context-tokens parse-duration pi-embedded-helpers prompt-cache-stability provider-attribution
       provider-id provider-model-shared session-transcript-repair string-coerce system-prompt-cache-boundary tokens
       utils version)
# Done when fetched before and every piece is there (a list grown since then fetches again).
if [ -f "$dest/.openclaw-$version" ]; then
  missing=0
  for n in "${names[@]}"; do compgen -G "$dest/$n-*.js" >/dev/null || missing=1; done
  [ "$missing" = 0 ] && exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "openclaw@$version" >/dev/null
mkdir -p "$dest"
patterns=(package/package.json)
for n in "${names[@]}"; do patterns+=("package/dist/$n-*.js"); done
tar xzf "openclaw-$version.tgz" --wildcards --no-anchored -C "$tmp" "${patterns[@]}"
cp "$tmp"/package/dist/*.js "$tmp/package/package.json" "$dest/"
touch "$dest/.openclaw-$version"
