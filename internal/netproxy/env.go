package netproxy

// Env is the environment a sandboxed process gets so that its programs
// use the proxy at addr (host:port, as the process reaches it): the HTTP
// variables in both cases, and ALL_PROXY as socks5h:// so that names are
// resolved by the proxy (there is no resolver inside the sandbox). NO_PROXY
// names the loopback only: what a process serves to itself stays direct.
func Env(addr string) []string {
	httpURL := "http://" + addr
	socksURL := "socks5h://" + addr
	const noProxy = "localhost,127.0.0.1,::1"
	return []string{
		"HTTP_PROXY=" + httpURL, "http_proxy=" + httpURL,
		"HTTPS_PROXY=" + httpURL, "https_proxy=" + httpURL,
		"ALL_PROXY=" + socksURL, "all_proxy=" + socksURL,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
	}
}
