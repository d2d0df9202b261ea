package httpserve

import "net"

// hasData would peek at c; Windows is not asked (no MSG_DONTWAIT), so a
// connection counts as silent until the server reads from it.
func hasData(net.Conn) bool { return false }

// fdLimit is unknown on Windows (handles have no such limit).
func fdLimit() int { return 0 }
