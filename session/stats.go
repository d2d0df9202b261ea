package session

// EvictedBytes is how many bytes of output the process has produced that are
// no longer retained: evicted from the front of its log to keep it within
// YIELDSHELL_MAX_LOG_BYTES.
func (p *Process) EvictedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.start
}
