// Package testhooks holds the knobs the fault and chaos tests turn from
// outside a process: a replacement plugin, another build's id, a slowed or
// narrowed daemon, a log of compilations. Each one would let whoever sets
// a variable change what decides or where ctxhook writes, so none of them
// is in what users run: only a binary built with -tags ctxhook_testhooks
// (the test binaries make builds) reads them. In any other build every
// function here returns the zero value and the variables' names are not
// in the binary at all (host/tests/release checks both).
package testhooks

import "time"

// Tag is the build tag that turns the knobs on.
const Tag = "ctxhook_testhooks"

// Daemon is what the fault tests change in `ctxhook daemon`.
type Daemon struct {
	BuildID  string        // another build's id: the mismatch path
	Delay    time.Duration // held before each request: queues and deadlines
	InFlight int64         // the bound on payload bytes in flight: refusals
	Watchdog time.Duration // a shorter watchdog: a stuck guest
}
