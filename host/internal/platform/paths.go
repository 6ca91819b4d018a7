package platform

// DefaultPaths are where ctxhook keeps its files when CTXHOOK_HOME does
// not say (DefaultDirs, one per OS): the paths package builds on them.
type DefaultPaths struct {
	Data, Cache, Config string
}
