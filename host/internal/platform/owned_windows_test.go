package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"golang.org/x/sys/windows"
)

// aces lists the SIDs path's DACL allows, and whether it is protected
// from its parent's.
func aces(t *testing.T, path string) (sids []string, protected bool) {
	t.Helper()
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	ctl, _, _ := sd.Control()
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("%s: no DACL (%v)", path, err)
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if windows.GetAce(dacl, i, &ace) == nil && ace.Header.AceType == windows.ACCESS_ALLOWED_ACE_TYPE {
			sids = append(sids, aceSID(ace).String())
		}
	}
	return sids, ctl&windows.SE_DACL_PROTECTED != 0
}

// TestOwnerOnlyACL: a directory ctxhook makes its own admits only the
// user, and so does a file created in it (inherited); OwnedDir accepts it, and
// refuses it once Everyone may write it.
func TestOwnerOnlyACL(t *testing.T) {
	if testdir.UnderWine() {
		// Wine 8.0 accepts SetNamedSecurityInfo on a file and keeps
		// nothing: it reads back a DACL made from the Unix mode bits.
		t.Skip("Wine does not keep file DACLs; this runs on Windows itself")
	}
	me, err := user()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(testdir.New(t), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	Tighten(dir)
	f := filepath.Join(dir, "ctxhook.db")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, f} {
		sids, _ := aces(t, p)
		if len(sids) != 1 || sids[0] != me.String() {
			t.Errorf("%s admits %v, want only this user %s", p, sids, me)
		}
	}
	if _, protected := aces(t, dir); !protected {
		t.Errorf("%s still inherits its parent's entries", dir)
	}
	if err := OwnedDir(dir); err != nil {
		t.Errorf("OwnedDir refuses ctxhook's own directory: %v", err)
	}
	// Everyone may write: refused.
	everyone, _ := windows.CreateWellKnownSid(windows.WinWorldSid)
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL, AccessMode: windows.GRANT_ACCESS, Inheritance: windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID, TrusteeType: windows.TRUSTEE_IS_WELL_KNOWN_GROUP, TrusteeValue: windows.TrusteeValueFromSID(everyone)},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		t.Fatal(err)
	}
	if err := OwnedDir(dir); err == nil || !strings.Contains(err.Error(), "writable by") {
		t.Errorf("OwnedDir accepts a directory Everyone may write: %v", err)
	}
	TightenFile(f)
	if sids, _ := aces(t, f); len(sids) != 1 || sids[0] != me.String() {
		t.Errorf("after TightenFile %s admits %v", f, sids)
	}
}
