#!/bin/sh
# Builds the npm packages from a release build (release/build.sh).
#
#   release/npm.sh DIST_DIR OUT_DIR VERSION
#
# VERSION is a semver without the v (1.2.3). OUT_DIR gets the package
# yieldshell, whose bin runs the right binary, and one package
# @yieldshell/OS-CPU per binary in DIST_DIR, as esbuild and biome ship:
# npm installs only the one matching the machine's os and cpu, from
# optionalDependencies, with no install script and no download. Publish the
# platform packages first: cd OUT_DIR/PKG && npm publish --access public.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 DIST_DIR OUT_DIR VERSION" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
dist=$1 out=$2 version=${3#v}
# What every package says about where it comes from and under which terms.
common='"license": "MIT",
  "homepage": "https://github.com/yieldshell/yieldshell#readme",
  "bugs": {"url": "https://github.com/yieldshell/yieldshell/issues"},
  "repository": {"type": "git", "url": "git+https://github.com/yieldshell/yieldshell.git"}'
mkdir -p "$out"

# Every supported platform, as GOOS-GOARCH=npm-os-npm-cpu.
all="linux-amd64=linux-x64 linux-arm64=linux-arm64 darwin-amd64=darwin-x64 darwin-arm64=darwin-arm64"
optional=
for p in $all; do
	go=${p%=*}
	npm=${p#*=}
	optional="$optional${optional:+,
    }\"@yieldshell/$npm\": \"$version\""
	[ -f "$dist/yieldshell-$go" ] || continue
	dir=$out/yieldshell-$npm
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	cp "$dist/yieldshell-$go" "$dir/bin/yieldshell"
	chmod 755 "$dir/bin/yieldshell"
	cp "$root/LICENSE" "$dir/"
	cat >"$dir/package.json" <<JSON
{
  "name": "@yieldshell/$npm",
  "version": "$version",
  "description": "The yieldshell binary for ${npm%-*} on ${npm#*-}; install the yieldshell package instead.",
  $common,
  "os": ["${npm%-*}"],
  "cpu": ["${npm#*-}"],
  "files": ["bin/yieldshell"],
  "preferUnplugged": true
}
JSON
done

dir=$out/yieldshell
rm -rf "$dir"
mkdir -p "$dir/bin"
cp "$root/npm/yieldshell/bin/yieldshell.js" "$dir/bin/"
cp "$root/npm/yieldshell/README.md" "$root/LICENSE" "$dir/"
cat >"$dir/package.json" <<JSON
{
  "name": "yieldshell",
  "version": "$version",
  "description": "MCP server that runs shell commands for agents, each under its own pseudo-terminal.",
  $common,
  "keywords": ["mcp", "mcp-server", "model-context-protocol", "shell", "terminal", "pty", "repl", "ai", "agent", "llm"],
  "mcpName": "io.github.yieldshell/yieldshell",
  "bin": {"yieldshell": "bin/yieldshell.js"},
  "files": ["bin/yieldshell.js"],
  "engines": {"node": ">=18"},
  "optionalDependencies": {
    $optional
  }
}
JSON
