package session

// Raw returns the exact bytes the log stores for the selected streams from
// position since on, at most maxBytes of them (cut at any byte): text as
// it was cleaned and redacted, binary output as the program wrote it
// (after redaction; in PTY mode as the terminal gave it to us, see
// appendChunk). It commits what is on the screen first, as an answer does.
// Output.Binary says which stretches are binary; Stdout and Stderr hold
// both kinds. A since the log has evicted starts at the oldest byte it
// still has (Evicted); the kept head of the output is not used.
//
// The bytes may hold anything a program wrote, escape sequences included:
// they are for an answer that encodes them (read's encoding "base64", a
// resource's blob), never for one that shows them as text. A snapshot with
// Query.Raw is the same read with the process's state of the same instant.
func (p *Process) Raw(since int64, maxBytes int, streams Stream) Output {
	return p.Snapshot(Query{Since: &since, MaxBytes: maxBytes, Streams: streams, Raw: true}).Output
}
