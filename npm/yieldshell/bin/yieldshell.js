#!/usr/bin/env node
// Runs the prebuilt yieldshell binary of this platform. npm installed it
// as one of the optionalDependencies: the one whose os and cpu match.
"use strict";

const { spawn } = require("node:child_process");

const target = `${process.platform}-${process.arch}`;
let bin;
try {
  bin = require.resolve(`@yieldshell/${target}/bin/yieldshell`);
} catch {
  console.error(
    `yieldshell: no prebuilt binary for ${target} (npm package @yieldshell/${target} is not installed).\n` +
      "Prebuilt binaries exist for linux and darwin on x64 and arm64; reinstall without --omit=optional or --no-optional,\n" +
      "or build it with Go: go install github.com/yieldshell/yieldshell/cmd/yieldshell@latest",
  );
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
// Pass on what would end us, so the server ends its processes itself.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error(`yieldshell: starting ${bin}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
