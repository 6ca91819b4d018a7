package winpipe

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// UserSID is the SID of the user this process runs as.
func UserSID() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("winpipe: this process's user: %w", err)
	}
	return tu.User.Sid.Copy()
}

// Descriptor is the pipe's security descriptor: owned by sid, with a
// protected DACL (nothing inherited from above) of one entry granting sid
// full access. Anyone else, the local system and administrators included,
// is denied by omission; network logons are refused by the pipe's
// PIPE_REJECT_REMOTE_CLIENTS as well.
func Descriptor(sid *windows.SID) (*windows.SECURITY_DESCRIPTOR, error) {
	s := sid.String()
	return windows.SecurityDescriptorFromString("O:" + s + "G:" + s + "D:P(A;;GA;;;" + s + ")")
}
