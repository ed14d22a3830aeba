package lsp

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

// TestGrowOutputPipe grows a real pipe and checks its capacity, then
// writes a message of 300 KB into it with nobody reading: the write
// must return (it would block at Linux's default 64 KiB). A file that is
// not a pipe, and a writer that is not a file, are left alone.
func TestGrowOutputPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	want := outputPipeSize
	if max := pipeMaxSize(); max > 0 && max < want {
		want = max
	}
	if got := growOutputPipe(w); got < want {
		t.Fatalf("growOutputPipe = %d, want at least %d", got, want)
	}
	var size int
	sc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	sc.Control(func(fd uintptr) {
		n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSize, 0)
		if errno == 0 {
			size = int(n)
		}
	})
	if size < want {
		t.Fatalf("the pipe holds %d bytes after growOutputPipe, want at least %d", size, want)
	}
	// Written whole with nobody reading: a large answer.
	msg := bytes.Repeat([]byte("x"), min(size, 300<<10))
	if n, err := w.Write(msg); err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d", n, err, len(msg))
	}

	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := growOutputPipe(f); got != 0 {
		t.Errorf("growOutputPipe of a regular file = %d, want 0", got)
	}
	if got := growOutputPipe(&bytes.Buffer{}); got != 0 {
		t.Errorf("growOutputPipe of a buffer = %d, want 0", got)
	}
}
