package mcptool

import "context"

// Outcome is what an answer says that a server counts (package metrics):
// the status of an exec, the policy rule of a refusal, and how a wait for
// input was seen. Answer types say it by having an Outcome method; Add
// hands it to whoever asked with WithOutcome, so nobody reads it back out
// of the answer's JSON.
type Outcome struct {
	Status          string // exec's status
	Rule            string // the policy rule that refused the call
	WaitingForInput bool
	InputSignal     string
}

// Outcomer is an answer that says its Outcome.
type Outcomer interface{ Outcome() Outcome }

type outcomeKey struct{}

// WithOutcome returns a context under which a tool added with Add stores
// its answer's Outcome in the returned place; it stays zero when the
// handler failed, answered with an error of the protocol's or with input
// requests, or its answer says none.
func WithOutcome(ctx context.Context) (context.Context, *Outcome) {
	o := new(Outcome)
	return context.WithValue(ctx, outcomeKey{}, o), o
}

// recordOutcome stores out's Outcome where WithOutcome asked for it.
func recordOutcome(ctx context.Context, out any) {
	if dst, ok := ctx.Value(outcomeKey{}).(*Outcome); ok {
		if o, ok := out.(Outcomer); ok {
			*dst = o.Outcome()
		}
	}
}
