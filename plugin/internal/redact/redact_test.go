package redact

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in string
		gone     []string // substrings that must not survive
		keep     []string // substrings that must survive
	}{
		{name: "json sensitive key", in: `{"user":"ann","password":"hunter2!","n":1}`,
			gone: []string{"hunter2!"}, keep: []string{`"user":"ann"`, `"password":"[REDACTED]"`}},
		{name: "escaped json key inside text block", in: `[{"type":"text","text":"{\"api_key\":\"abc123def456\",\"id\":\"CVX-1\"}"}]`,
			gone: []string{"abc123def456"}, keep: []string{"CVX-1"}},
		{name: "bearer header", in: `curl -H "Authorization: Bearer abcdefghijklmnop123" x`,
			gone: []string{"abcdefghijklmnop123"}},
		{name: "basic header", in: `Authorization: Basic dXNlcjpwYXNzd29yZA==`, gone: []string{"dXNlcjpwYXNzd29yZA=="}},
		{name: "url password", in: `postgres://admin:s3cr3tPass@db.internal:5432/app`,
			gone: []string{"s3cr3tPass"}, keep: []string{"postgres://admin:", "@db.internal"}},
		{name: "aws key", in: `key AKIAIOSFODNN7EXAMPLE here`, gone: []string{"AKIAIOSFODNN7EXAMPLE"}},
		{name: "github token", in: "ghp_" + strings.Repeat("a1B2", 9), gone: []string{"ghp_a1B2"}},
		{name: "slack", in: "xoxb-123456789012-abcdefghij", gone: []string{"xoxb-123456789012"}},
		{name: "anthropic key", in: "sk-ant-api03-" + strings.Repeat("x", 30), gone: []string{"sk-ant-api03-xxx"}},
		{name: "stripe", in: "sk_live_" + strings.Repeat("9", 24), gone: []string{"sk_live_999"}},
		{name: "google", in: "AIza" + strings.Repeat("Q", 35), gone: []string{"AIzaQQQ"}},
		{name: "jwt", in: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			gone: []string{"dozjgNryP4J3"}},
		{name: "private key", in: "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
			gone: []string{"MIIEow"}},
		{name: "query string", in: "https://x.test/api?api_key=zzzz9999&q=1", gone: []string{"zzzz9999"}, keep: []string{"q=1"}},
		{name: "invalid UTF-8 and case-changing letters before an anchor", in: "\xff\xfe İİ Authorization: BeArer abcdefghijklmnop123",
			gone: []string{"abcdefghijklmnop123"}},
		{name: "ticket ids and prose survive", in: `Ticket CVX-5909: the token bucket is empty; see getUserById`,
			keep: []string{"CVX-5909", "token bucket", "getUserById"}},
		// A token with a distinctive prefix goes wherever it stands.
		{name: "atlassian token in prose", in: "try (ATATT3" + strings.Repeat("xFfGF0T8", 22) + "AbCd=4F2D8A1B) again",
			gone: []string{"ATATT3xFfGF0", "4F2D8A1B"}, keep: []string{"try (", ") again"}},
		{name: "mailgun key in prose", in: "the key is key-3ax6xnjp29jd6fds4gc373sgvjxteol0.", gone: []string{"3ax6xnjp29jd6fds4gc373sgvjxteol0"}},
		{name: "discord bot token in prose", in: "bot MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs, and",
			gone: []string{"MTk4NjIyNDgzNDcxOTI1MjQ4", "ZnCjm1XVW7vRze4b7Cq4se7kKWs"}, keep: []string{"bot ", ", and"}},
		{name: "pass keys", in: `{"pass": "p4ss-one", "db_pass": "p4ss-two", "smtpPass": "p4ss-three", "passphrase": "p4ss-four", "bypass": "yes"}`,
			gone: []string{"p4ss-"}, keep: []string{`"bypass": "yes"`}},
		{name: "escaped keys", in: `{"\u0070assword": "s3cr3t-1", "api\u005Fkey": "s3cr3t-2", "a": "{\"\\u0074oken\": \"s3cr3t-3\"}"}`,
			gone: []string{"s3cr3t-"}},
		{name: "pass assignments", in: "DB_PASS=hunter22x\nsmtp.pass: hunter22y\n?user=bob&pass=hunter22z&x=1\nexport GPG_PASSPHRASE=hunter22w",
			gone: []string{"hunter22"}, keep: []string{"&x=1"}},
		{name: "keys written without a separator", in: "accessToken=xxxxxxxx1 AuthToken: xxxxxxxx2 accesskey=xxxxxxxx3 privateKey=xxxxxxxx4",
			gone: []string{"xxxxxxxx"}}, // below the generic rule's entropy floor
		{name: "pass that is no password", in: "--- PASS: TestFoo (0.00s)\nFILTER_PASS = 0x2\npass = true\nbypass=cache\npass: 3",
			keep: []string{"PASS: TestFoo", "FILTER_PASS = 0x2", "pass = true", "bypass=cache", "pass: 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := New().String(tt.in)
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("%q survived: %s", g, got)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("%q lost: %s", k, got)
				}
			}
			if len(tt.gone) > 0 && n == 0 {
				t.Errorf("count is 0 for %s", got)
			}
			if again, _ := New().String(got); again != got {
				t.Errorf("not idempotent:\n%s\n%s", got, again)
			}
		})
	}
}

func TestSensitiveName(t *testing.T) {
	for name, want := range map[string]bool{"GITHUB_TOKEN": true, "DB_PASSWORD": true, "OPENAI_API_KEY": true, "DB_PASS": true,
		"PASS": true, "smtpPass": true, "GPG_PASSPHRASE": true, "passphrase": true, "BYPASS": false, "COMPASS": false,
		"TOKEN_COUNT": false, "PATH": false, "PWD": true} {
		if got := SensitiveName(name); got != want {
			t.Errorf("SensitiveName(%q) = %v", name, got)
		}
	}
}

func TestKnownValues(t *testing.T) {
	r := New("short", "tok_0123456789abcdef", "tok_0123456789abcdef-longer")
	got, n := r.String("a tok_0123456789abcdef-longer b tok_0123456789abcdef short")
	if want := "a [REDACTED] b [REDACTED] short"; got != want || n != 2 {
		t.Fatalf("got %q (%d), want %q", got, n, want)
	}
}

func FuzzString(f *testing.F) {
	f.Add(`{"password":"x1234"}`, "tok_abcdefgh12")
	f.Add("Bearer abcdefghijkl", "")
	f.Add("postgres://u:p@h/db", "")
	f.Fuzz(func(t *testing.T, s, known string) {
		r := New(known)
		once, _ := r.String(s)
		twice, _ := r.String(once)
		if once != twice {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if len(known) >= MinKnownLen && strings.Contains(once, known) && !strings.Contains(Marker, known) {
			t.Fatalf("known value survived: %q in %q", known, once)
		}
	})
}

// Every rule must compile; a rule is compiled lazily, so a broken one would
// otherwise only show on the first payload that holds its keyword.
func TestRulesCompile(t *testing.T) {
	for _, ru := range rules {
		if _, err := regexp.Compile(ru.pattern); err != nil {
			t.Errorf("%s: %v", ru.kind, err)
		}
		for _, a := range ru.allow {
			if _, err := regexp.Compile(a); err != nil {
				t.Errorf("%s allowlist: %v", ru.kind, err)
			}
		}
	}
	// gitleaks v8.30.1 has 222 rules; one matches file names only.
	if len(gitleaksRules) != 221 || GitleaksVersion != "v8.30.1" {
		t.Errorf("%d generated rules from %s, want 221 from v8.30.1 (make rules)", len(gitleaksRules), GitleaksVersion)
	}
}

func TestLongSecretsAreRemovedWhole(t *testing.T) {
	long := strings.Repeat("q", 5000)
	for name, in := range map[string]string{
		"json value":  `{"session_token":"` + long + `"}`,
		"escaped":     `"{\"api_key\":\"` + long + `\"}"`,
		"bearer":      "Authorization: Bearer " + long,
		"key=value":   "password=" + long + " next",
		"private key": "-----BEGIN PRIVATE KEY-----\n" + long + "\n-----END PRIVATE KEY-----",
	} {
		got, _ := New().String(in)
		if strings.Contains(got, "qqqq") {
			t.Errorf("%s: part of a long secret survived (%d bytes left)", name, strings.Count(got, "q"))
		}
	}
}

// A certificate's window used to be widened to the end of the key after
// it, past the next window: the first version panicked on such text.
func TestCertificateThenKey(t *testing.T) {
	cert := "-----BEGIN CERTIFICATE-----\n" + strings.Repeat("MIIBhTCCASugAwIBAgIQIRi6zePL6mKjOipn+dNuaTAKBggqhkjOPQQDAjASMRAw\n", 50) + "-----END CERTIFICATE-----\n"
	key := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n"
	in := cert + "x := `" + key + "`\n" + cert + cert
	got, n := New().String(in)
	if strings.Contains(got, "MHcCAQEEIIrYSSNQ") || n != 1 || !strings.Contains(got, "-----BEGIN CERTIFICATE-----") {
		t.Errorf("%d redactions: %.300q", n, got)
	}
}

func TestJSONKeys(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"max_tokens": 5, "tokens": "x", "token_count": "9"}`, `{"max_tokens": 5, "tokens": "x", "token_count": "9"}`},
		{`{"Session_Token" : "abc"}`, `{"Session_Token" : "[REDACTED]"}`},
		{`{"password":"a\"b"}`, `{"password":"[REDACTED]"}`},
		{`{"password":""}`, `{"password":""}`},
		{`{"password":"unterminated`, `{"password":"[REDACTED]`},
		{`"{\"db_password\":\"p\\\"w\",\"id\":\"CVX-1\"}"`, `"{\"db_password\":\"[REDACTED]\",\"id\":\"CVX-1\"}"`},
	}
	for _, tt := range tests {
		if got, _ := jsonKeys(tt.in); got != tt.want {
			t.Errorf("jsonKeys(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// searchEach is the straightforward way to find the anchors: lower-case
// the text, then search it once per anchor. The scanner must find the
// same occurrences on every input.
func searchEach(s string, from, to int) []hit {
	lower := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
	if len(lower) != len(s) { // invalid UTF-8 became U+FFFD: lower bytes instead
		b := []byte(s)
		for i, c := range b {
			b[i] = lowerTab[c]
		}
		lower = string(b)
	}
	var out []hit
	for id, a := range theScanner().anchors {
		if a.class != nil {
			for i := from; i < to && i+4 <= len(s); i++ {
				if inClass(s[i:i+4], a.class) {
					out = append(out, hit{i, id})
				}
			}
			continue
		}
		for _, lit := range []string{a.lit} {
			for i := from; i < to; {
				j := strings.Index(lower[i:], lit)
				if j < 0 || i+j >= to {
					break
				}
				out = append(out, hit{i + j, id})
				i += j + 1
			}
		}
	}
	slices.SortFunc(out, func(a, b hit) int { return cmp.Or(a.p-b.p, a.n-b.n) })
	return out
}

func scanAll(s string, from, to int) []hit {
	var out []hit
	theScanner().scan(s, from, to, func(p int, a int32) { out = append(out, hit{p, int(a)}) })
	slices.SortStableFunc(out, func(a, b hit) int { return cmp.Or(a.p-b.p, a.n-b.n) })
	return out
}

func TestScanMatchesSearchEach(t *testing.T) {
	for _, s := range []string{"", "nothing here", "PASSWORD=x password=y PassWord", "xoxb-xoxb-xoxb-", "sk-sk-sk-",
		"https://u:p@h and http://x", strings.Repeat("akia", 300) + "-----BEGIN RSA PRIVATE KEY-----", `{"\u0070ass": 1}`,
		"sk", "ey", "s.", "a3t", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"} {
		for _, r := range [][2]int{{0, len(s)}, {1, len(s)}, {0, len(s) - 2}, {3, len(s) - 1}} {
			if r[0] < 0 || r[1] < r[0] || r[1] > len(s) {
				continue
			}
			if got, want := scanAll(s, r[0], r[1]), searchEach(s, r[0], r[1]); !slices.Equal(got, want) {
				t.Errorf("%q %v: got %v, want %v", s, r, got, want)
			}
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add("Bearer abcdefghijkl password: hunter22 ghp_x eyJ.eyJ", 3, 20)
	f.Add("-----begin-----BEGIN xoxa-xoxa- ://://", 0, 100)
	f.Fuzz(func(t *testing.T, s string, from, to int) {
		from, to = max(0, min(from, len(s))), max(0, min(to, len(s)))
		if got, want := scanAll(s, from, to), searchEach(s, from, to); !slices.Equal(got, want) {
			t.Fatalf("%q [%d:%d]: got %v, want %v", s, from, to, got, want)
		}
	})
}

func TestCLIFlag(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"mysql -u root --password hunter2x prod", "mysql -u root --password " + Marker + " prod"},
		{"deploy --API-KEY 'abc123def' now", "deploy --API-KEY '" + Marker + "' now"},
		{"vault login --token\ts.abcdefgh", "vault login --token\t" + Marker},
		{"pass the --token flag", "pass the --token flag"},
		{"--token --verbose", "--token --verbose"},
		{"--token-file /etc/token", "--token-file /etc/token"},
		{"i-- ; x --", "i-- ; x --"},
		{strings.Repeat("-", 200) + " token", strings.Repeat("-", 200) + " token"},
	} {
		if got, _ := New().String(tt.in); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}
