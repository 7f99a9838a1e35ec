#!/bin/sh
# Installs kafkajs 2.2.4 from npm into test/interop/node_modules (gitignored)
# when node and npm are present and it is missing. Never fails the build:
# without it the kafkajs checks are skipped.
cd "$(dirname "$0")" || exit 0
command -v node >/dev/null 2>&1 || { echo "interop: node not found; kafkajs checks skipped"; exit 0; }
[ -f node_modules/kafkajs/package.json ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "interop: npm not found; kafkajs checks skipped"; exit 0; }
echo "interop: installing kafkajs 2.2.4 from npm"
timeout 120 npm install --no-audit --no-fund --loglevel=error >/dev/null 2>&1 ||
    echo "interop: npm install failed; kafkajs checks skipped"
exit 0
