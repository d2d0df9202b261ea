package remote

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/sshdtest"
)

// BenchmarkSSHEcho: issue 44 item 7. Each iteration runs `echo hello`
// on the other host twice, in turn: through exec's host on the open
// connection (start to the end's answer), and as ssh's own `ssh box echo
// hello` over a ControlMaster connection opened beforehand. It reports
// both medians and their ratio.
func BenchmarkSSHEcho(b *testing.B) {
	h := sshdtest.Start(b)
	m := sshManager(b, h)
	ctx := b.Context()
	run := func() {
		p, err := m.Start(ctx, session.Spec{Command: "echo hello", SideEffects: []string{"NONE"}, TTY: true, Host: "box"})
		if err != nil {
			b.Fatal(err)
		}
		if o := p.Await(ctx, time.Now().Add(20*time.Second), session.Until{}); o.Reason != session.ReasonExited {
			b.Fatalf("remote echo: %s", o.Reason)
		}
	}
	run() // the connection, and the copy of the executor
	cm := append(slices.Clone(h.SSH), "-S", filepath.Join(b.TempDir(), "cm"))
	master := exec.Command(cm[0], append(cm[1:], "-M", "-N", "box")...)
	if err := master.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = master.Process.Kill(); _ = master.Wait() })
	viaSSH := func() {
		if out, err := exec.Command(cm[0], append(cm[1:], "box", "echo", "hello")...).CombinedOutput(); err != nil || string(out) != "hello\n" {
			b.Fatalf("ssh echo: %v %q", err, out)
		}
	}
	viaSSH()
	var ours, theirs []time.Duration
	for b.Loop() {
		t0 := time.Now()
		run()
		t1 := time.Now()
		viaSSH()
		ours, theirs = append(ours, t1.Sub(t0)), append(theirs, time.Since(t1))
	}
	mo, mt := median(ours), median(theirs)
	b.ReportMetric(float64(mo.Microseconds())/1000, "exec-ms")
	b.ReportMetric(float64(mt.Microseconds())/1000, "ssh-cm-ms")
	b.ReportMetric(float64(mo)/float64(mt), "ratio")
}

// BenchmarkPromptToAnswer: issue 44 item 7's second figure. A write that
// answers one prompt, to the answer that the program waits at the next:
// on the other host and, in the same run, on this one (the same Manager's
// local engine).
func BenchmarkPromptToAnswer(b *testing.B) {
	h := sshdtest.Start(b)
	m := sshManager(b, h)
	const loop = `while read -p 'next? ' x; do :; done`
	start := func(host string) *session.Process {
		p, err := m.Start(b.Context(), session.Spec{Command: loop, SideEffects: []string{"NONE"}, TTY: true, Host: host})
		if err != nil {
			b.Fatal(err)
		}
		p.Await(b.Context(), time.Now().Add(20*time.Second), session.Until{InputWait: true})
		return p
	}
	rp, lp := start("box"), start("")
	answer := func(p *session.Process) time.Duration {
		t0 := time.Now()
		if err := p.Type(b.Context(), "y", nil, true, false); err != nil {
			b.Fatal(err)
		}
		if o := p.Await(b.Context(), time.Now().Add(20*time.Second), session.Until{InputWait: true}); o.Reason != session.ReasonInputWait {
			b.Fatalf("answer: %s", o.Reason)
		}
		return time.Since(t0)
	}
	var r, l []time.Duration
	for b.Loop() {
		r, l = append(r, answer(rp)), append(l, answer(lp))
	}
	b.ReportMetric(float64(median(r).Microseconds())/1000, "remote-ms")
	b.ReportMetric(float64(median(l).Microseconds())/1000, "local-ms")
	b.ReportMetric(float64(median(r)-median(l))/float64(time.Millisecond), "diff-ms")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
