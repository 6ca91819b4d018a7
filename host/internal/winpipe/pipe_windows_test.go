package winpipe

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/ctxhook/ctxhook/internal/testdir"
)

// TestDescriptorAdmitsOnlyTheUser reads the pipe's security descriptor
// back as a structure: owner and group the user, a protected DACL (no
// inherited entries) of exactly one entry, which allows the user full
// access. Wine keeps no DACLs on pipes, so this is what is checked here;
// whether Windows enforces it is not tested on this machine.
func TestDescriptorAdmitsOnlyTheUser(t *testing.T) {
	sid, err := UserSID()
	if err != nil {
		t.Fatal(err)
	}
	sd, err := Descriptor(sid)
	if err != nil {
		t.Fatal(err)
	}
	owner, _, err := sd.Owner()
	if err != nil || !windows.EqualSid(owner, sid) {
		t.Fatalf("owner %v (%v), want %v", owner, err, sid)
	}
	group, _, err := sd.Group()
	if err != nil || !windows.EqualSid(group, sid) {
		t.Fatalf("group %v (%v), want %v", group, err, sid)
	}
	ctl, _, err := sd.Control()
	if err != nil || ctl&windows.SE_DACL_PRESENT == 0 || ctl&windows.SE_DACL_PROTECTED == 0 || ctl&windows.SE_DACL_DEFAULTED != 0 {
		t.Fatalf("control %#x (%v): want a present, protected, not defaulted DACL", ctl, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("DACL: %v (%v)", dacl, err)
	}
	if dacl.AceCount != 1 {
		t.Fatalf("the DACL has %d entries, want 1", dacl.AceCount)
	}
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, 0, &ace); err != nil {
		t.Fatal(err)
	}
	if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags != 0 {
		t.Fatalf("entry type %d flags %#x: want an allow entry, not inherited", ace.Header.AceType, ace.Header.AceFlags)
	}
	if ace.Mask != windows.GENERIC_ALL {
		t.Fatalf("entry mask %#x, want GENERIC_ALL", ace.Mask)
	}
	if got := (*windows.SID)(unsafe.Pointer(&ace.SidStart)); !windows.EqualSid(got, sid) {
		t.Fatalf("the entry admits %v, want only %v", got, sid)
	}
	for _, who := range []windows.WELL_KNOWN_SID_TYPE{windows.WinWorldSid, windows.WinAnonymousSid, windows.WinNetworkSid, windows.WinBuiltinAdministratorsSid, windows.WinLocalSystemSid} {
		other, err := windows.CreateWellKnownSid(who)
		if err == nil && windows.EqualSid(other, sid) {
			t.Fatalf("the user is the well-known SID %d", who)
		}
	}
}

func pipeName(t *testing.T, sid *windows.SID) string {
	return Name(`C:\ctxhook-test\`+strconv.Itoa(os.Getpid())+`\`+t.Name(), sid)
}

// TestRoundTrip: a client of this user connects, writes, and reads the
// server's answer; the server sees its end close as io.EOF.
func TestRoundTrip(t *testing.T) {
	sid, _ := UserSID()
	name := pipeName(t, sid)
	ln, err := Listen(name, sid)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		if !c.(*Conn).ClientIsMine(sid) {
			done <- errors.New("the client is not taken for this user's")
			return
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			done <- err
			return
		}
		big := make([]byte, 1<<20) // past the pipe's buffer
		big[len(big)-1] = '\n'
		_, err = c.Write(append([]byte("got "+line), big...))
		done <- err
	}()
	c, err := Dial(name, sid, time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if string(all[:10]) != "got hello\n" || len(all) != 10+1<<20 {
		t.Fatalf("answer %q... (%d bytes)", all[:min(len(all), 10)], len(all))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestNameTakenFirst: a pipe whose name exists already (made by whoever
// came first) is not served: Listen fails rather than sharing it.
func TestNameTakenFirst(t *testing.T) {
	sid, _ := UserSID()
	name := pipeName(t, sid)
	ln, err := Listen(name, sid)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if l2, err := Listen(name, sid); err == nil {
		l2.Close()
		if testdir.UnderWine() {
			t.Skip("Wine ignores FILE_FLAG_FIRST_PIPE_INSTANCE: a name taken first is refused by the client's check of the server's user instead")
		}
		t.Fatal("a second server took a pipe name that exists")
	}
}

// TestDeadlines: a read with no data returns at its deadline; Close ends
// a blocked Accept; a pipe nobody serves fails to dial at once.
func TestDeadlines(t *testing.T) {
	sid, _ := UserSID()
	name := pipeName(t, sid)
	if _, err := Dial(name, sid, time.Now().Add(time.Second)); err == nil {
		t.Fatal("dialed a pipe nobody serves")
	}
	ln, err := Listen(name, sid)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := Dial(name, sid, time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	server := <-accepted
	defer server.Close()
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	began := time.Now()
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v", err)
	}
	if d := time.Since(began); d > 3*time.Second {
		t.Fatalf("the read returned %v after its deadline", d)
	}
	closed := make(chan error, 1)
	go func() { _, err := ln.Accept(); closed <- err }()
	time.Sleep(100 * time.Millisecond)
	ln.Close()
	select {
	case err := <-closed:
		if err == nil {
			t.Fatal("Accept after Close succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a blocked Accept")
	}
}

// TestClientGoneBeforeAccept: a client that connects and closes before
// the server waits on the instance (a killed hook client, or any process
// of the user) does not end Accept: the instance is reset and the next
// client is served. Before, Accept returned ERROR_NO_DATA and the
// daemon's accept loop stopped.
func TestClientGoneBeforeAccept(t *testing.T) {
	sid, _ := UserSID()
	name := pipeName(t, sid)
	ln, err := Listen(name, sid)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	gone, err := Dial(name, sid, time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	var c *Conn
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c, err = Dial(name, sid, time.Now().Add(time.Second)); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c != nil {
		defer c.Close()
	}
	select {
	case err := <-accepted:
		if err != nil {
			t.Fatalf("Accept after a client that left: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept did not return for the second client")
	}
}

// TestCloseEndsPendingRead: Close while a Read waits with no deadline
// ends the Read (net.ErrClosed) and returns itself: it waits for pending
// operations before it closes the handle, and they are cancelled.
func TestCloseEndsPendingRead(t *testing.T) {
	sid, _ := UserSID()
	name := pipeName(t, sid)
	ln, err := Listen(name, sid)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			served <- c
		}
	}()
	c, err := Dial(name, sid, time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-served
	read := make(chan error, 1)
	go func() {
		_, err := s.Read(make([]byte, 16))
		read <- err
	}()
	time.Sleep(200 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return while a Read was pending")
	}
	select {
	case err := <-read:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("pending Read ended with %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the pending Read did not end")
	}
}
