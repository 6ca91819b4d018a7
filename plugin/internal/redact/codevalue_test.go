package redact

import (
	"strings"
	"testing"
)

// TestCodeValues: a password or secret key assigned an expression in
// code is left as it is; a literal, quoted or not, is still redacted.
func TestCodeValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kept bool
	}{
		{"password = None", true},
		{"pwd = os.getcwd()", true},
		{"secret: creds.password", true},
		{"db_password=$DB_PASSWORD", true},
		{"password: ${{ secrets.DB_PASSWORD }}", true},
		{"client_secret = self.client_secret", true},
		{"password = getpass.getpass(prompt)", true},
		{"password = auth[2]", true},
		{"const password = await readUserInfo.password()", true},
		{"password=hunter2hunter", false},
		{`password = "creds.password"`, false},
		{"password: Summer.2024!", false},
		{"api_key=sk_live_not_a_path", false},
		{"PGPASSWORD=correct-horse-battery", false},
		{"secret = c0ffee.beans.42", false},
	} {
		got, _ := New().String(tc.in)
		if kept := got == tc.in; kept != tc.kept {
			t.Errorf("%q: got %q, kept %v, want kept %v", tc.in, got, kept, tc.kept)
		}
		if !tc.kept && !strings.Contains(got, "[REDACTED") {
			t.Errorf("%q: no marker in %q", tc.in, got)
		}
	}
}
