//go:build !linux && !darwin

package main

// payloadBuffer: no mapping here; readAll grows a slice instead.
func payloadBuffer(int) []byte { return nil }
