package platform

const sysMemfdCreate = 319 // not in package syscall's table for amd64
