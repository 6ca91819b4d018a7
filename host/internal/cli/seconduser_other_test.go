//go:build !unix

package cli

// secondUserProbe is TestSecondUser's other side, which needs Unix users.
func secondUserProbe(string) {}
