// Package prompt decides whether a program is waiting for input, and why:
// shell-integration marks (OSC 133/633), the terminal's foreground process
// blocked on a read, and prompt-shaped last lines after a quiet period.
package prompt
