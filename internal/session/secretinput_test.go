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
