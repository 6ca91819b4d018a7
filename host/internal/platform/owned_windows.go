package platform

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a file's owner is a SID and who may do what is its access
// control list (DACL). ctxhook's directories get a protected DACL that
// grants only the user (its entry inherited by what is created inside:
// the equivalent of 0700 directories and 0600 files), and a directory is
// refused when its owner is another account or its DACL lets anyone but
// the user, SYSTEM or the Administrators write it.

// fileDeleteChild (winnt.h): delete anything inside a directory.
const fileDeleteChild = 0x40

// user is this process's user SID.
func user() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, err
	}
	return tu.User.Sid, nil
}

// trusted are the accounts that may write anything on the machine anyway.
func trusted(sid *windows.SID) bool {
	return sid.IsWellKnown(windows.WinLocalSystemSid) || sid.IsWellKnown(windows.WinBuiltinAdministratorsSid)
}

// OwnedDir checks that dir is a directory (not a link or junction) owned by
// this user (or the Administrators, as an elevated process's files are)
// and writable by no one else.
func OwnedDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&fs.ModeIrregular != 0 {
		return fmt.Errorf("%s is a link", abs)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", abs)
	}
	return foreign(abs, fi)
}

// foreign: p is owned by another account, or its DACL lets another write.
func foreign(p string, _ fs.FileInfo) error {
	me, err := user()
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if o, _, err := sd.Owner(); err == nil && o != nil && !o.Equals(me) && !trusted(o) {
		return fmt.Errorf("%s is owned by %s, not by this user (%s)", p, o, me)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if dacl == nil {
		return fmt.Errorf("%s has no access control list: everyone may write it", p)
	}
	const write = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.WRITE_DAC | windows.WRITE_OWNER |
		windows.DELETE | windows.GENERIC_WRITE | windows.GENERIC_ALL | fileDeleteChild
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if windows.GetAce(dacl, i, &ace) != nil || ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue
		}
		sid := aceSID(ace)
		if ace.Mask&write != 0 && !sid.Equals(me) && !trusted(sid) {
			return fmt.Errorf("%s is writable by %s", p, sid)
		}
	}
	return nil
}

// aceSID is the SID an access-allowed entry names: it starts at the
// entry's SidStart field.
func aceSID(ace *windows.ACCESS_ALLOWED_ACE) *windows.SID {
	return (*windows.SID)(unsafe.Pointer(&ace.SidStart))
}

// protect gives path a protected DACL that grants only this user,
// inherited by what is created under a directory.
func protect(path string, inherit bool) error {
	me, err := user()
	if err != nil {
		return err
	}
	flags := uint32(windows.NO_INHERITANCE)
	if inherit {
		flags = windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       flags,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(me),
		},
	}}, nil)
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
}

// PrivateFiles does nothing: on Windows, files inherit the owner-only
// DACL Tighten gave their directory.
func PrivateFiles() {}

// Tighten gives dir, when it is a real directory, the owner-only DACL.
func Tighten(dir string) {
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
		protect(dir, true)
	}
}

// TightenFile gives path, when it is a regular file, the owner-only DACL.
func TightenFile(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		protect(path, false)
	}
}

// linkMine: the symbolic link p is this user's and only theirs to change.
func linkMine(p string, fi fs.FileInfo) error { return foreign(p, fi) }

// MayCreate: Windows has no root running with another user's profile the
// way a Unix root runs with HOME set; the ACL checks of OwnedDir apply.
func MayCreate(dir string) error { return nil }

// FileOwner has no uid to give on Windows.
func FileOwner(path string) (int, bool) { return 0, false }
