// Package release holds the scripts that build yieldshell's release
// binaries (build.sh) and npm packages (npm.sh), and the tests that check
// them: the build is reproducible, and the packed npm packages install and
// serve MCP through npx.
package release
