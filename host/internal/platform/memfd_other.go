//go:build !linux

package platform

import (
	"errors"
	"os"
)

func memfd() (*os.File, error) { return nil, errors.ErrUnsupported }
