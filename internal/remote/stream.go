package remote

import (
	"io"
	"sync"
)

// stream is one output stream of a remote process: what arrived and was
// not read yet, and the sequence number of the next byte to arrive.
type stream struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	seq    uint64
	eof    bool
	closed bool
}

func newStream() *stream {
	s := &stream{}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// add appends output whose first byte is number seq: what was received
// already (a resume sends from where the server said, or earlier) is
// skipped; a gap (output the executor no longer had) is taken as it is.
// It waits while the reader is maxBuffered behind.
func (s *stream) add(seq uint64, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq < s.seq {
		skip := s.seq - seq
		if skip >= uint64(len(b)) {
			return
		}
		b, seq = b[skip:], s.seq
	}
	for len(s.buf) >= maxBuffered && !s.closed {
		s.cond.Wait()
	}
	if s.closed || s.eof {
		return
	}
	s.buf = append(s.buf, b...)
	s.seq = seq + uint64(len(b))
	s.cond.Broadcast()
}

func (s *stream) received() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// end: nothing more comes.
func (s *stream) end() {
	s.mu.Lock()
	s.eof = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

// close ends the reader at once.
func (s *stream) close() {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) == 0 && !s.eof && !s.closed {
		s.cond.Wait()
	}
	if len(s.buf) == 0 || s.closed {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.buf = nil
	}
	s.cond.Broadcast()
	return n, nil
}
