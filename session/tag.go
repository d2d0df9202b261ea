package session

// tagKey names the environment variable that marks every process a server
// started, and all their descendants: "<server pid>:<server start>:<id>".
// It finds descendants that left their process group, and, after a server
// was killed outright, the processes it left behind.
const tagKey = "YIELDSHELL_TAG"
