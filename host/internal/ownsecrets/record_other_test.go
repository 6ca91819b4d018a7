//go:build !unix

package ownsecrets

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
