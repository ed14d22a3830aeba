//go:build !unix

package keyword

import (
	"fmt"
	"io"
	"os"
)

// readFile reads the regular file at path into buf (reused when large
// enough).
func readFile(path string, buf []byte, maxSize int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return buf, err
	}
	if !fi.Mode().IsRegular() {
		return buf, fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	}
	return readAll(buf, fi.Size(), maxSize, func(p []byte) (int, error) {
		n, err := f.Read(p)
		if err == io.EOF {
			err = nil
		}
		return n, err
	})
}
