//go:build race

package conformance

// raceEnabled builds the server with the race detector when the suite runs
// with it, so the end-to-end tests check the server for races too.
const raceEnabled = true
