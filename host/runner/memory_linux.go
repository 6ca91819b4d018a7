package runner

import "syscall"

// mapNoReserve: no swap is set aside for the reservation; pages exist
// only once touched.
const mapNoReserve = syscall.MAP_NORESERVE
