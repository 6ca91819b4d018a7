//go:build !windows

package main

// exeSuffix ends an executable's file name.
const exeSuffix = ""
