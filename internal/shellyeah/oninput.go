package shellyeah

import (
	"context"
	"time"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// onInputGrace is how long a shell stopped for asking gets between SIGTERM
// and SIGKILL.
const onInputGrace = time.Second

// failOnInput stops p if it waits for input and v says on_input "fail"; it
// returns what p asked, or nil.
func (h *handlers) failOnInput(ctx context.Context, p *session.Process, v verification) *session.InputState {
	if !v.failOnInput {
		return nil
	}
	st := p.InputState()
	if !st.Waiting {
		return nil
	}
	_, _ = p.StopForInput(ctx, onInputGrace) // the answer reports the end, whatever it was
	return &st
}

// askedOf is the grammar and serving fields of st.
func askedOf(st session.InputState) mcptool.Asked {
	g := st.Grammar
	return mcptool.NewAsked(g.Choices, g.Default, g.Range, g.Items, g.Selected, g.Checked, st.Ready, st.Ports)
}
