package store

// Windows has no umask: files get the directory's inherited ACL.
func syscallUmask(m int) int { return 0 }
