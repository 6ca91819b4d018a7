package runner

// mapNoReserve: macOS reserves nothing for an anonymous mapping until its
// pages are touched, and has no such flag.
const mapNoReserve = 0

// hugePages: macOS has no transparent huge pages to ask for.
func hugePages([]byte) {}
