package main

// mapNoReserve: macOS reserves nothing for an anonymous mapping until
// it is touched.
const mapNoReserve = 0

func hugePages([]byte) {}
