package retrievalcorpus

import (
	"fmt"
	"strings"
)

// Templates: many per class, in the words an agent types into a search
// box. Paraphrases use the services' and symptoms' synonyms (Syn), never
// the documents' own wording of them.

func (a *asker) identifiers() []Question {
	w := a.c.w
	var out []Question
	q := func(query string, e Expect) { out = append(out, Question{Query: query, Expect: []Expect{e}}) }
	for _, s := range w.stories {
		q(a.pick([]string{"%s", "%s", "what is %s about", "%s details", "status of %s", "look up %s"}), Expect{})
		out[len(out)-1].Query = fmt.Sprintf(out[len(out)-1].Query, s.Jira)
		out[len(out)-1].Expect[0] = expect(s.Jira+"/summary", s.summary(), "")
		q(fmt.Sprintf(a.pick([]string{"%s", "sentry %s", "%s stack trace", "sentry issue %s"}), s.Sentry), expect(s.Sentry+"/title", s.Error, ""))
		repo := strings.TrimPrefix(s.Repo, "shopco/")
		q(fmt.Sprintf(a.pick([]string{"PR #%d %s", "pull request %d in %s", "%[2]s#%[1]d", "%[2]s PR %[1]d"}), s.PR, repo),
			expect(prName(s.Repo, s.PR)+"/title", fmt.Sprintf("%s: %s", s.Svc.Name, s.Fix), ""))
		q(fmt.Sprintf(a.pick([]string{"%s", "%s timeline", "incident %s"}), s.Incident),
			expect(s.Incident+"/name", strings.ToUpper(s.Svc.Say[:1])+s.Svc.Say[1:]+" "+s.Sym.Say, ""))
		q(fmt.Sprintf(a.pick([]string{"%s", "trace_id %s", "logs for trace %s"}), s.Trace), expect("trace/"+s.Trace, s.Error, ""))
	}
	for _, t := range w.noise {
		q(fmt.Sprintf(a.pick([]string{"%s", "%s", "what is %s", "ticket %s"}), t.Key), expect(t.Key+"/summary", t.Summary, ""))
	}
	return out
}

// fragment is a run of words of s that holds its distinctive part (a
// word with a digit), or s itself.
func (a *asker) fragment(s string) string {
	words := strings.Fields(s)
	if len(words) <= 4 {
		return s
	}
	for range 20 {
		i := a.r.IntN(len(words) - 3)
		j := i + 4 + a.r.IntN(len(words)-i-3)
		frag := strings.Join(words[i:j], " ")
		if strings.ContainsAny(frag, "0123456789") {
			return strings.Trim(frag, "(),:")
		}
	}
	return s
}

func (a *asker) errors() []Question {
	var out []Question
	for _, s := range a.c.w.stories {
		for _, style := range []int{0, 1} {
			text := s.Error
			if style == 1 {
				text = a.fragment(s.Error)
			}
			if a.r.IntN(3) == 0 {
				text = `"` + text + `"`
			}
			out = append(out, Question{Query: text, Expect: []Expect{expect(s.Jira+"/error", s.Error, strings.Trim(text, `"`))}})
		}
	}
	return out
}

func (a *asker) paraphrases() []Question {
	var out []Question
	for _, s := range a.c.w.stories {
		svc, sym := a.pick(s.Svc.Syn), a.pick(s.Sym.Syn)
		if a.r.IntN(3) == 0 {
			svc = s.Svc.Say // agents name the component as everyone does
		}
		query := fmt.Sprintf(a.pick([]string{
			"why %[1]s %[2]s %[3]s",
			"what broke %[1]s %[3]s",
			"root cause when %[1]s %[2]s",
			"did we ever figure out why %[1]s %[2]s",
			"%[1]s %[2]s - what was behind it",
			"what caused it when %[1]s %[2]s",
			"explain the problem where %[1]s %[2]s",
			"postmortem: %[1]s %[2]s %[3]s",
			"is there a known reason %[1]s %[2]s %[3]s",
			"%[1]s %[2]s, any idea why?",
		}), svc, sym, s.Trig.Syn)
		out = append(out, Question{Query: query, Expect: []Expect{expect(s.Jira+"/cause", s.Cause, "")}})
	}
	return out
}

func (a *asker) fields() []Question {
	w := a.c.w
	var out []Question
	q := func(query string, es ...Expect) { out = append(out, Question{Query: query, Expect: es}) }
	for _, t := range w.noise {
		q(fmt.Sprintf(a.pick([]string{"who owns the %s ticket", "who is assigned to the %s", "who's working on the %s", "assignee of the %s ticket"}), t.Desc),
			expect(t.Key+"/assignee", t.Assignee, ""))
	}
	for _, s := range w.stories {
		q(fmt.Sprintf(a.pick([]string{"which release fixed %s", "what version shipped the fix for %s", "fix version for %s"}), s.Jira),
			expect(s.Jira+"/fixVersion", s.Release, ""))
		q(fmt.Sprintf(a.pick([]string{"who reviewed the fix for %s", "who approved the PR that fixed %s", "reviewer of the %s fix"}), s.Jira),
			expect(prName(s.Repo, s.PR)+"/reviewer", login(s.Reviewer), ""))
		q(fmt.Sprintf(a.pick([]string{"who wrote the change to %s", "author of the PR that does: %s"}), s.Fix),
			expect(prName(s.Repo, s.PR)+"/author", login(s.Author), ""))
		q(fmt.Sprintf(a.pick([]string{"who led the incident when %s %s", "incident commander for %[1]s %[2]s"}), s.Svc.Say, s.Sym.Say),
			expect(s.Incident+"/lead", s.Lead, ""))
		q(fmt.Sprintf(a.pick([]string{"which release did %s first show up in", "first release of sentry %s"}), s.Sentry),
			expect(s.Sentry+"/firstRelease", strings.TrimPrefix(s.Release, s.Svc.Name+" "), ""))
		q(fmt.Sprintf(a.pick([]string{"what does the runbook say to run when %s %s", "runbook command for %s that %s", "who do we escalate to if %s %s"}), s.Svc.Say, s.Sym.Say),
			a.runbookFact(s))
	}
	for _, o := range w.options {
		q(fmt.Sprintf(a.pick([]string{"what is the default %[2]s in %[1]s", "%[1]s %[3]s default value", "default for %[3]s in %[1]s", "how is %[1]s %[2]s set by default"}), o.Lib, o.Desc, o.Name),
			expect(o.Lib+"/"+o.Name, "default is "+o.Default, ""))
	}
	return out
}

// runbookFact is the command of the runbook for s's service and
// symptom (a question without one is dropped as unsound).
func (a *asker) runbookFact(s *story) Expect {
	name := "runbook/" + s.Svc.Name + "/" + s.Sym.Name
	for v := range a.facts[name+"/command"] {
		return expect(name+"/command", v, "")
	}
	return expect(name+"/command", "", "")
}

func (a *asker) twoFacts() []Question {
	var out []Question
	q := func(query string, es ...Expect) { out = append(out, Question{Query: query, Expect: es}) }
	for _, s := range a.c.w.stories {
		pr := prName(s.Repo, s.PR)
		switch a.r.IntN(5) {
		case 0:
			q(fmt.Sprintf(a.pick([]string{"who led %s and who reviewed the fix for %s", "%s incident lead, and the reviewer of the %s fix"}), s.Incident, s.Jira),
				expect(s.Incident+"/lead", s.Lead, ""), expect(pr+"/reviewer", login(s.Reviewer), ""))
		case 1:
			q(fmt.Sprintf(a.pick([]string{"who is assigned %s and which release did %s first appear in", "assignee of %s plus first release of %s"}), s.Jira, s.Sentry),
				expect(s.Jira+"/assignee", s.Assignee, ""), expect(s.Sentry+"/firstRelease", strings.TrimPrefix(s.Release, s.Svc.Name+" "), ""))
		case 2:
			q(fmt.Sprintf(a.pick([]string{"what error did %s log and what does the runbook say to do when %s %s", "%s error in the logs and the runbook mitigation for %s %s"}), s.Svc.Name, s.Svc.Say, s.Sym.Say),
				expect(s.Jira+"/error", s.Error, ""), a.runbookFact(s))
		case 3:
			q(fmt.Sprintf(a.pick([]string{"who merged the fix for %s and what was the peak error rate during %s", "merger of the %s fix and %s peak error rate"}), s.Jira, s.Incident),
				expect(pr+"/merger", login(s.Merger), ""), expect(s.Incident+"/peak", a.peak(s), ""))
		default:
			q(fmt.Sprintf(a.pick([]string{"which branch fixed %s and who owns %s", "branch of the fix for %s, and the assignee of %s"}), s.Sentry, s.Jira),
				expect(pr+"/branch", s.Branch, ""), expect(s.Jira+"/assignee", s.Assignee, ""))
		}
	}
	return out
}

// peak is the peak error rate the Grafana annotation of s's incident
// gives ("" when none was recorded).
func (a *asker) peak(s *story) string {
	for v := range a.facts[s.Incident+"/peak"] {
		return v
	}
	return ""
}
