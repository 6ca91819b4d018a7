package testdir

import "golang.org/x/sys/windows"

// UnderWine reports whether this Windows process runs under Wine (its
// ntdll exports wine_get_version): tests of what Wine does not emulate
// say so and skip.
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
