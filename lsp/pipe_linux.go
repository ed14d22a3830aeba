package lsp

import (
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// outputPipeSize is the capacity growOutputPipe asks for: 1 MiB, Linux's
// default limit for an unprivileged process (/proc/sys/fs/pipe-max-size).
const outputPipeSize = 1 << 20

// growOutputPipe grows the pipe the server writes its messages to, when
// out is one, from the 64 KiB Linux gives a pipe to outputPipeSize (or
// the most the system allows): an answer larger than 64 KiB (the outline
// of a file of 250 definitions or more, a long list of references) is
// then written in one call while the editor is busy, rather than in
// several that each wait for the editor to read (on a busy machine, each
// for the editor's turn on a core). It reports
// the pipe's capacity, 0 when out is not a pipe or its size is unknown.
// A pipe that cannot grow stays as it is.
func growOutputPipe(out io.Writer) int {
	f, ok := out.(*os.File)
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return 0
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	size := 0
	sc.Control(func(fd uintptr) {
		for _, want := range []int{outputPipeSize, pipeMaxSize()} {
			if want <= 0 {
				continue
			}
			if n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, uintptr(want)); errno == 0 {
				size = int(n)
				return
			}
		}
		if n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSize, 0); errno == 0 {
			size = int(n)
		}
	})
	return size
}

// The fcntl commands of a pipe's capacity (linux/fcntl.h), which package
// syscall does not name.
const (
	fSetPipeSize = 1031
	fGetPipeSize = 1032
)

// pipeMaxSize reads the largest pipe an unprivileged process may make,
// or 0.
func pipeMaxSize() int {
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
