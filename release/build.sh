#!/bin/sh
# Builds the release binaries, reproducibly, and their SHA-256 checksums.
#
#   release/build.sh [OUT_DIR [GOOS/GOARCH ...]]
#
# OUT_DIR defaults to dist/; the targets to linux and darwin on amd64 and
# arm64. Each binary is OUT_DIR/yieldshell-GOOS-GOARCH, statically linked
# (CGO_ENABLED=0) and built with -trimpath, so the same commit and Go release
# give the same bytes on any machine and in any directory. The version it
# reports comes from the module version and VCS revision the go command
# records (build from a git checkout, at a tag for a release).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
[ $# -gt 0 ] && shift
targets=${*:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$root"
bins=
for t in $targets; do
	goos=${t%/*}
	goarch=${t#*/}
	bin=yieldshell-$goos-$goarch
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch \
		go build -buildvcs=auto -trimpath -ldflags='-s -w' -o "$out/$bin" ./cmd/yieldshell
	bins="$bins $bin"
done
cd "$out"
if command -v sha256sum >/dev/null; then
	sha256sum $bins >SHA256SUMS
else
	shasum -a 256 $bins >SHA256SUMS
fi
cat SHA256SUMS
