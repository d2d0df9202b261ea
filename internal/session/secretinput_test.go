//go:build unix

package session

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// TestSecretTakenOnlyWhereNothingEchoes: a password prompt whose reader the
// kernel cannot show (another user's program, such as sudo) takes a secret
// only while the terminal reads lines with its echo off; a raw terminal (a
// line editor that echoes for itself, ssh relaying a remote prompt) or one
// that echoes does not, whatever the prompt says.
func TestSecretTakenOnlyWhereNothingEchoes(t *testing.T) {
	tests := []struct {
		name       string
		activity   prompt.Activity
		echo, raw  bool
		wantSignal Signal
		takes      bool
	}{
		{"unknown reader, lines, echo off (sudo)", prompt.Unknown, false, false, SignalTTYMode, true},
		{"unknown reader, raw, echo off (ssh, readline)", prompt.Unknown, false, true, SignalQuiet, false},
		{"unknown reader, lines, echo on", prompt.Unknown, true, false, SignalQuiet, false},
		{"polling several descriptors, lines, echo off", prompt.Polling, false, false, SignalQuiet, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m, e, k := fakeManager(t, nil, func(f *fakeProc) { f.echo, f.raw = tt.echo, tt.raw })
				k.script(tt.activity, nil)
				p, f := startFake(t, m, e, spec("sudo -k true", true))
				f.print("[sudo] password for ada: ")
				o := p.Await(t.Context(), time.Now().Add(5*time.Second), Until{InputWait: true})
				if o.Reason != ReasonInputWait || o.Input.Kind != prompt.KindPassword {
					t.Fatalf("not a password prompt: %+v", o)
				}
				if o.Input.Signal != tt.wantSignal || o.Input.TakesSecret() != tt.takes {
					t.Errorf("signal %s, takes a secret %v; want %s, %v", o.Input.Signal, o.Input.TakesSecret(), tt.wantSignal, tt.takes)
				}
			})
		})
	}
}

// TestSecretThroughRelay: a reader seen through a relay (script, tmux)
// waits with relay_read, and takes a secret only when no terminal it
// crosses echoes and the inner one reads lines: the relay sets ours raw,
// so the inner terminal's settings decide the kind.
//
// Spec: issue 43 item 1: "their verdict carries an input_signal that says it was seen through a relay"; "The same rules of who may be typed a secret apply to the inner terminal".
func TestSecretThroughRelay(t *testing.T) {
	tests := []struct {
		name              string
		outerEcho         bool
		relay             prompt.Relay
		wantKind          prompt.Kind
		takes             bool
		outerRaw, noModes bool
	}{
		{"script: ours raw, inner lines without echo (getpass)", false, prompt.Relay{Echo: false, Canonical: true}, prompt.KindPassword, true, true, false},
		{"script: inner echoes (input())", false, prompt.Relay{Echo: true, Canonical: true}, prompt.KindLine, false, true, false},
		{"unbuffer without interact: ours echoes", true, prompt.Relay{Echo: false, Canonical: true}, prompt.KindLine, false, false, false},
		{"inner raw without echo at a password prompt, as tty_read takes it", false, prompt.Relay{Echo: false, Canonical: false}, prompt.KindPassword, true, true, false},
		{"inner modes unknown", false, prompt.Relay{}, prompt.KindLine, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m, e, k := fakeManager(t, nil, func(f *fakeProc) { f.echo, f.raw = tt.outerEcho, tt.outerRaw })
				rl := tt.relay
				rl.Terminal, rl.Depth, rl.ModesKnown = "/dev/pts/9", 1, !tt.noModes
				k.script(prompt.Reading, func(prompt.Input) prompt.Probe {
					return prompt.Probe{Activity: prompt.Reading, Reader: prompt.Task{Pid: 4242, Tid: 4242}, Relay: &rl}
				})
				p, f := startFake(t, m, e, spec("script -qc 'sudo -k true' /dev/null", true))
				f.print("[sudo] password for ada: ")
				o := p.Await(t.Context(), time.Now().Add(5*time.Second), Until{InputWait: true})
				if o.Reason != ReasonInputWait || o.Input.Signal != SignalRelay || o.Input.Confidence != ConfidenceHigh {
					t.Fatalf("not waiting through a relay: %+v", o)
				}
				if o.Input.Kind != tt.wantKind || o.Input.TakesSecret() != tt.takes {
					t.Errorf("kind %s, takes a secret %v; want %s, %v", o.Input.Kind, o.Input.TakesSecret(), tt.wantKind, tt.takes)
				}
			})
		})
	}
}
