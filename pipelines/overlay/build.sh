#!/usr/bin/env bash
# Rebuild the overlay bundle (dist/, committed). Needs Node 20+ and npm; the server does not.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npx tsc --noEmit -p .
node build.mjs
