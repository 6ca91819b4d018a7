package cli

import (
	"fmt"
	"time"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/firing"
	"github.com/ctxhook/ctxhook/host/internal/install"
)

// doctorFiringJSON is `doctor --json`: for each of h's events, whether
// its hook is configured (in the user's or the project's settings) and
// whether it fires (package firing). Exit 1 when one is silent.
func doctorFiringJSON(env Env, h install.Harness) int {
	p, err := resolvePaths(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ctxhook doctor: %v\n", err)
		return 1
	}
	wired := map[string]bool{}
	if h.Kind != harnessconfigs.KindHookFile {
		// Its loader registers every event, and doctor's text checks
		// whether it is installed: here, every event counts as configured.
		for _, ev := range h.Events() {
			wired[ev] = true
		}
	} else {
		for _, scope := range []string{"user", "project"} {
			path, err := settingsPath(env, h, scope)
			if err != nil {
				continue
			}
			got, _, err := h.Wiring(path, executable(), install.Journal{Dir: p.Installs()}.Exes(path)...)
			if err != nil {
				continue
			}
			for ev, ok := range got {
				wired[ev] = wired[ev] || ok
			}
		}
	}
	sts := firing.Report(firing.Dir(p.Data), h.Name, h.Events(), wired, env.Getenv, time.Now())
	if err := firing.PrintJSON(env.Stdout, sts); err != nil {
		return 1
	}
	for _, st := range sts {
		if st.State == firing.Silent {
			return 1
		}
	}
	return 0
}
