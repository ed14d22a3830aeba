//go:build unix

package keyword

import (
	"fmt"
	"os"
	"syscall"
)

// readFile reads the regular file at path into buf (reused when large
// enough) with plain system calls: a search reads thousands of small files,
// and *os.File's poller registration and finalizer cost more than reading
// them. O_NONBLOCK keeps the open of a FIFO from waiting for a writer; it is
// then refused as not a regular file.
func readFile(path string, buf []byte, maxSize int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return buf, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, fmt.Errorf("not a regular file (mode %#o)", st.Mode&syscall.S_IFMT)
	}
	return readAll(buf, int64(st.Size), maxSize, func(p []byte) (int, error) {
		for {
			n, err := syscall.Read(fd, p)
			switch {
			case err == syscall.EINTR:
				continue
			case err != nil:
				return 0, &os.PathError{Op: "read", Path: path, Err: err}
			}
			return n, nil
		}
	})
}
