#!/bin/sh
# Installs the Debian packages liblogrep needs when any is missing.
# As root: apt-get update + apt-get install. Otherwise: prints the apt line.
set -e
PKGS="pkg-config libzstd-dev liblz4-dev libxxhash-dev libisal-dev zlib1g-dev \
libsnappy-dev libcriterion-dev librdkafka-dev kcat clang libclang-rt-14-dev \
python3 python3-cffi python3-pycparser python3-pytest abigail-tools"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends $missing
else
    echo "deps: missing packages; run as root:"
    echo "  apt-get update && apt-get install -y$missing"
    exit 1
fi
