#!/bin/sh
# Installs the Debian packages hloscope needs to build, test and benchmark.
# As root it runs apt-get; otherwise it prints the exact command and stops.
PKGS="gcc make pkg-config libncurses-dev libgraphviz-dev graphviz zlib1g-dev
libreadline-dev libprotobuf-c-dev protobuf-c-compiler libpcre2-dev liblzma-dev libisal-dev libdeflate-dev
python3-numpy tmux imagemagick clang"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "hloscope needs these Debian packages:$missing" >&2
	echo "run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null || exit 1
