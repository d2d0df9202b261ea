package wire

// Omitted says what an answer's output leaves out between its head and its
// tail: positions from_seq (the first byte left out) to to_seq (the first
// byte after), as next_seq counts; read since_seq from_seq returns it.
type Omitted struct {
	FromSeq int64 `json:"from_seq" jsonschema:"position of the first byte left out: read since_seq from_seq returns it"`
	ToSeq   int64 `json:"to_seq" jsonschema:"position after the last byte left out (exclusive, like next_seq)"`
	Bytes   int64 `json:"bytes" jsonschema:"how many bytes were left out"`
	Lines   int64 `json:"lines" jsonschema:"how many line ends were left out"`
	Evicted int64 `json:"evicted,omitempty" jsonschema:"how many of those bytes are no longer stored (the ring dropped them): read cannot return them"`
}

// OmitFields are what exec, read, wait and write answers say about output
// they leave out or cannot show as text.
type OmitFields struct {
	Omitted     *Omitted     `json:"omitted,omitempty" jsonschema:"output left out between the head and the tail of stdout (the answer's cap): read since_seq from_seq returns it, as far as it is still stored"`
	Binary      bool         `json:"binary,omitempty" jsonschema:"the output holds binary (NUL bytes or mostly invalid UTF-8): its bytes are not in stdout or stderr, which keep the text around them; bytes says how many; the log keeps them exactly: read with encoding \"base64\" returns them"`
	Bytes       *int64       `json:"bytes,omitempty" jsonschema:"with binary: how many bytes of binary output the answer covers"`
	BinaryParts []BinaryPart `json:"binary_parts,omitempty" jsonschema:"with binary: where the binary output is (at most 16 parts listed)"`
}

// BinaryPart is a stretch of binary output: positions from_seq to to_seq
// (exclusive), as next_seq counts.
type BinaryPart struct {
	FromSeq int64  `json:"from_seq" jsonschema:"position of its first byte: read since_seq from_seq with encoding \"base64\" returns it"`
	ToSeq   int64  `json:"to_seq" jsonschema:"position after its last byte (exclusive, like next_seq)"`
	Stream  string `json:"stream" jsonschema:"stdout or stderr"`
}
