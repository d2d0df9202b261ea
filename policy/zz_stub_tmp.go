package policy

// AllSideEffects is a temporary stub until the policy branch lands.
func AllSideEffects() []SideEffect { panic("unimplemented") }
