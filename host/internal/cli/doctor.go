package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin"
)

func runDoctor(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "doctor", "<harness>", "Check what is wired and what is not. Exit 1 when something needs fixing.")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || pos[0] != "claude-code" {
		fmt.Fprintln(env.Stderr, "ctxhook: supported harness: claude-code")
		return 2
	}
	w := env.Stdout
	problems := 0
	okf := func(format string, a ...any) { fmt.Fprintf(w, "  ok    "+format+"\n", a...) }
	bad := func(format string, a ...any) { problems++; fmt.Fprintf(w, "  FIX   "+format+"\n", a...) }
	info := func(format string, a ...any) { fmt.Fprintf(w, "  --    "+format+"\n", a...) }

	fmt.Fprintln(w, "ctxhook")
	okf("binary %s (%s)", executable(), Version())
	p, err := resolvePaths(env)
	if err != nil {
		bad("%v", err)
		return 1
	}
	if r, err := runner.New(ctx, runner.Options{CacheDir: p.WasmCache()}); err != nil {
		bad("plugin does not load: %v", err)
	} else {
		r.Close(ctx)
		okf("plugin loads (%d bytes), compilation cache in %s", len(plugin.Wasm), p.WasmCache())
	}
	if cfg, err := config.Load(p.Config); err != nil {
		bad("%v", err)
	} else {
		var relay []string
		for name, s := range cfg.Servers {
			if s.Relay {
				relay = append(relay, name)
			}
		}
		sort.Strings(relay)
		if _, err := os.Stat(p.Config); err != nil {
			info("no config at %s (defaults; the relay is off)", p.Config)
		} else if len(relay) == 0 {
			okf("config %s (relay enabled for no server)", p.Config)
		} else {
			okf("config %s (relay enabled for %s)", p.Config, strings.Join(relay, ", "))
		}
	}
	if st, err := store.Open(p.DB(), store.Options{ReadOnly: true}); err != nil {
		info("no store yet at %s (created by the first hook)", p.DB())
	} else {
		s, err := st.Stats("")
		st.Close()
		if err != nil {
			bad("store %s: %v", p.DB(), err)
		} else {
			okf("store %s: %d events in %d sessions", p.DB(), s.Events, s.Sessions)
		}
	}

	fmt.Fprintln(w, "\nClaude Code")
	wiredAnywhere := map[string]bool{}
	for _, scope := range []string{"user", "project"} {
		path, err := settingsPath(env, scope)
		if err != nil {
			bad("%v", err)
			continue
		}
		wired, cmds, err := claudeWiring(path)
		switch {
		case os.IsNotExist(err):
			info("%s settings %s: not present", scope, path)
			continue
		case err != nil:
			bad("%s settings %s: %v", scope, path, err)
			continue
		}
		if len(wired) == 0 {
			info("%s settings %s: no ctxhook hooks", scope, path)
			continue
		}
		for _, ev := range install.ClaudeEvents {
			if wired[ev] {
				wiredAnywhere[ev] = true
			}
		}
		okf("%s settings %s: %d of %d hooks", scope, path, len(wired), len(install.ClaudeEvents))
		for _, c := range cmds {
			bin := strings.Trim(strings.Fields(c)[0], `'"`)
			if _, err := os.Stat(bin); err != nil && strings.Contains(bin, "/") {
				bad("hook command points at a missing binary: %s (re-run 'ctxhook install claude-code')", bin)
				break
			}
		}
	}
	for _, ev := range install.ClaudeEvents {
		if !wiredAnywhere[ev] {
			bad("%s hook is not wired (run 'ctxhook install claude-code')", ev)
		}
	}
	if problems > 0 {
		fmt.Fprintf(w, "\n%s to fix.\n", plural(int64(problems), "thing", "things"))
		return 1
	}
	fmt.Fprintln(w, "\nAll good.")
	return 0
}

// claudeWiring reports which events of a settings file run ctxhook.
func claudeWiring(path string) (map[string]bool, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, nil, fmt.Errorf("not valid JSON: %v", err)
	}
	wired := map[string]bool{}
	var cmds []string
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if install.IsOurs(h.Command, executable()) {
					wired[ev] = true
					cmds = append(cmds, h.Command)
				}
			}
		}
	}
	return wired, cmds, nil
}
