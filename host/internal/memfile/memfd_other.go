//go:build !linux

package memfile

import (
	"errors"
	"os"
)

func memfd() (*os.File, error) { return nil, errors.ErrUnsupported }
