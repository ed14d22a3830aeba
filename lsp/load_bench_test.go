package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/uri"
)

// benchConn is a server running in process over pipes, driven with raw
// frames: the same path as an editor's messages, without a process to
// start for each benchmark. A goroutine reads the server's output, as an
// editor does, and answers the server's requests with null.
type benchConn struct {
	in        *io.PipeWriter
	mu        sync.Mutex // serialises writes to in
	responses chan benchResponse
	done      chan int
	id        int
}

type benchResponse struct {
	id    string
	error json.RawMessage
}

func startBenchServer(b *testing.B, root string) *benchConn {
	b.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(Options{DataDir: b.TempDir()})
	c := &benchConn{in: inW, responses: make(chan benchResponse, 16), done: make(chan int, 1)}
	go func() {
		c.done <- s.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go c.read(bufio.NewReaderSize(outR, 1<<20))
	b.Cleanup(func() {
		inW.Close()
		<-c.done
	})
	c.call(b, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(root)), "capabilities": map[string]any{}})
	c.notify(b, "initialized", map[string]any{})
	return c
}

// read reads the server's frames until its output ends.
func (c *benchConn) read(r *bufio.Reader) {
	defer close(c.responses)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
		}
		body := make([]byte, max(length, 0))
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			c.write(map[string]any{"id": msg.ID, "result": nil})
		case msg.Method == "":
			c.responses <- benchResponse{string(msg.ID), msg.Error}
		}
	}
}

func (c *benchConn) write(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.writeRaw(append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(data))), data...))
}

func (c *benchConn) writeRaw(frame []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.in.Write(frame)
	return err
}

func (c *benchConn) notify(b *testing.B, method string, params any) {
	if err := c.write(map[string]any{"method": method, "params": params}); err != nil {
		b.Fatal(err)
	}
}

// call sends a request and waits for its response.
func (c *benchConn) call(b *testing.B, method string, params any) {
	c.id++
	if err := c.write(map[string]any{"id": c.id, "method": method, "params": params}); err != nil {
		b.Fatal(err)
	}
	for r := range c.responses {
		if r.id == strconv.Itoa(c.id) {
			if len(r.error) > 0 {
				b.Fatalf("%s: %s", method, r.error)
			}
			return
		}
	}
	b.Fatalf("%s: the server's output ended", method)
}

// largeText is n bytes of minified JavaScript: one line, or lines of
// about 80 bytes.
func largeText(n int, oneLine bool) string {
	var sb strings.Builder
	sb.Grow(n + 64)
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "function f%d(a){return a+%d};", i, i)
		if !oneLine && i%3 == 2 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// BenchmarkDidOpenLarge opens a document of 1 to 64 MB, on one line and
// on many, then asks workspace/symbol, through a server over pipes: the
// time and allocations per operation grow with the size, linearly (the
// document is over the size cap, kept as text and not parsed). Each
// operation opens and closes the document.
func BenchmarkDidOpenLarge(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc Main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, shape := range []struct {
		name    string
		oneLine bool
	}{{"one-line", true}, {"lines", false}} {
		for _, mb := range []int{1, 4, 16, 64} {
			b.Run(fmt.Sprintf("%s/%dMB", shape.name, mb), func(b *testing.B) {
				text := largeText(mb<<20-1024, shape.oneLine)
				c := startBenchServer(b, root)
				u := string(uri.File(filepath.Join(root, "big.min.js")))
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				open, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen",
					"params": map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "javascript", "version": 1, "text": text}}})
				if err != nil {
					b.Fatal(err)
				}
				frame := append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(open))), open...)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := c.writeRaw(frame); err != nil {
						b.Fatal(err)
					}
					c.call(b, "workspace/symbol", map[string]any{"query": "Main"})
					c.notify(b, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
				}
			})
		}
	}
}
