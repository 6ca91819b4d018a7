package hookproto

// SocketIsMine is false: Windows has no daemon socket yet.
func SocketIsMine(string) bool { return false }
