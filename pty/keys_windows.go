package pty

import "syscall"

// pipeKeys are the keys that mean something without a console: Ctrl-C
// asks the command to stop (Ctrl-Break to its process group). Ctrl-Z and
// Ctrl-\ have no such meaning on Windows and are written as bytes.
var pipeKeys = map[byte]syscall.Signal{0x03: syscall.SIGINT}
