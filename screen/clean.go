package screen

// Cleaner turns raw terminal output into clean log text, streaming.
//
// Text is committed (handed to the caller) when a line ends or when Flush is
// called; committed text is never taken back. If a line that was partly
// committed is later redrawn, the redrawn line is committed again after a
// newline, so an incremental reader sees each state it could have seen once.
type Cleaner struct{}

// NewCleaner returns a cleaner for a terminal cols wide (0 means 120).
func NewCleaner(cols int) *Cleaner { panic("unimplemented") }

// Write consumes p and appends the text it commits to dst. The result is
// valid UTF-8.
func (c *Cleaner) Write(dst, p []byte) []byte { panic("unimplemented") }

// Flush appends the pending, not yet committed part of the current line (as
// far as the cursor or the text reaches) to dst, so a prompt without a
// trailing newline becomes visible.
func (c *Cleaner) Flush(dst []byte) []byte { panic("unimplemented") }

// Close commits everything still pending, including a partial UTF-8 sequence
// (as U+FFFD), and appends it to dst. Call it at end of stream.
func (c *Cleaner) Close(dst []byte) []byte { panic("unimplemented") }

// AltScreen reports whether the program is in the alternate screen.
func (c *Cleaner) AltScreen() bool { panic("unimplemented") }
