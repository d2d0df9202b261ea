package shellyeah

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// AskHumanIn is ask_human's input, with a label for the process.
type AskHumanIn struct {
	Label     string `json:"label" jsonschema:"the shell's label"`
	Message   string `json:"message" jsonschema:"what you tell the person: which program asks, why, and what to type or do"`
	Secret    bool   `json:"secret,omitempty" jsonschema:"true: the shell waits for a password now and the person types it on the page; it goes to the program only and never reaches you. false (default): the person gets the whole terminal until they press Done"`
	TimeoutMs *int   `json:"timeout_ms,omitempty" jsonschema:"how long the page lives and the call may wait for the person (default 600000 = 10 minutes, at most 86400000)"`
}

// AskHumanOut is ask_human's answer: the link to show, or how the person
// finished and the shell as check_shell shows it.
type AskHumanOut struct {
	CheckOut
	URL         string `json:"url,omitempty" jsonschema:"when your client cannot show pages itself: the one-time page for the user. Show them this link; do not open it yourself"`
	YieldReason string `json:"yield_reason,omitempty" jsonschema:"how the person finished: human_done, human_declined or human_left"`
}

func askHumanTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "ask_human",
		Title: "Ask the user to answer a shell",
		Description: `Ask the user (the person you work for) to answer a shell themselves, on a one-time web page, instead of you.

Prefer ask_human for any secret the user has not given you (a sudo, ssh, gpg or database password, a token a program prompts for); never ask the user to paste a password into the chat. With secret: true the shell must be waiting for a password now (input_kind "password"): the user types it on the page, it goes straight into the terminal and never reaches you, the logs or the transcript. With secret: false the user gets the whole terminal, live, until they press Done; send_input is refused meanwhile.

If your client supports URL elicitation it shows the page itself and the call answers when the user is done (yield_reason human_done, human_declined or human_left), as check_shell would. Otherwise it answers at once with url: show that link to the user, do not open it yourself, and check_shell once they say they are done.

Example: {"label": "deploy", "message": "ssh asks for the key's passphrase", "secret": true}`,
		Annotations: mcptool.Annotations("Ask the user to answer a shell", mcptool.Types),
	}
}

func (h *handlers) askHuman(ctx context.Context, req *mcp.CallToolRequest, in AskHumanIn) (*mcp.CallToolResult, AskHumanOut, error) {
	var a askhuman.Answer
	if req.Params.RequestState != "" {
		a = h.human.Resume(ctx, req)
	} else {
		p, err := h.lookup(in.Label)
		if err != nil {
			return mcptool.Error(AskHumanOut{CheckOut: CheckOut{Shell: Shell{Label: in.Label, Status: "not_found", Args: []string{}}, Logs: []string{}, Error: sentence(err)}})
		}
		var timeout time.Duration
		if in.TimeoutMs != nil {
			timeout = max(mcptool.Millis(*in.TimeoutMs), time.Millisecond)
		}
		a = h.human.Ask(ctx, req, p, askhuman.Request{Message: in.Message, Secret: in.Secret, Timeout: timeout})
		if a.Process == nil {
			a.Process = p
		}
	}
	if a.Pending != nil {
		return a.Pending, AskHumanOut{}, nil
	}
	var out AskHumanOut
	if a.Process != nil {
		out.CheckOut = h.check(a.Process, defaultLines)
	} else {
		out.CheckOut = CheckOut{Shell: Shell{Label: in.Label, Status: "not_found", Args: []string{}}, Logs: []string{}}
	}
	switch {
	case a.Refused != "":
		out.Error = a.Refused
		return mcptool.Error(out)
	case a.URL != "":
		out.URL = a.URL
		out.Message = "Show this link to the user and tell them what it is for; do not open it yourself. It works once and expires. check_shell shows what happened once they are done."
		return nil, out, nil
	}
	out.YieldReason = string(a.Outcome)
	return nil, out, nil
}
