package mcp

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/anchorage-dev/anchorage/internal/limits"
	"github.com/anchorage-dev/anchorage/memory"
	"github.com/anchorage-dev/anchorage/retrieval"
)

// Argument limits: larger arguments are refused with an error naming the
// limit (the input schemas state them too).
const (
	// MaxQueryBytes is the longest query of the memory tools: the
	// router's.
	MaxQueryBytes = retrieval.MaxQuery
	// MaxSearchBytes is the longest query of search and route: a whole
	// task (an issue, a log) may be pasted.
	MaxSearchBytes = retrieval.MaxTaskQuery
	// MaxSymbolBytes is the longest symbol name.
	MaxSymbolBytes = 512
	// MaxPathBytes is the longest file path.
	MaxPathBytes = 4096
	// MaxScopeBytes is the longest scope filter.
	MaxScopeBytes = 256
	// MaxTextBytes is the longest correction.
	MaxTextBytes = memory.MaxCorrectionBytes
	// MaxTopK is the most results a search returns (the same for every
	// front end: package limits).
	MaxTopK = limits.MaxTopK
	// MaxBudget is the largest token budget.
	MaxBudget = limits.MaxBudget
	// MaxDepth is the deepest blast radius.
	MaxDepth = limits.MaxDepth
	// MaxSymbols is the most symbols listed.
	MaxSymbols = limits.MaxSymbols
	// MaxAnchors is the most anchor sections asked for at once, and
	// MaxAnchorBytes the longest anchor id.
	MaxAnchors     = 32
	MaxAnchorBytes = 128
)

// tool is one MCP tool: its name, and how to add it to a server.
type tool struct {
	name string
	add  func(*sdk.Server)
}

// toolSpec describes a tool for the model.
type toolSpec struct {
	name, title, description string
	// readOnly tools change nothing; the others add corrections or
	// proposals, never rules.
	readOnly bool
	// schema adjusts the input schema inferred from the argument type:
	// limits, enums, descriptions.
	schema func(props map[string]*jsonschema.Schema)
}

// newTool returns a tool whose handler takes In and answers Out as its
// structured content. Arguments are checked against the input schema
// before h is called; h's errors, and its panics, are the tool's errors
// (isError results naming the tool), and the server keeps serving.
func newTool[In, Out any](s *Service, spec toolSpec, h func(context.Context, In) (Out, error)) tool {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", spec.name, err)) // a programming error, caught by every test
	}
	if spec.schema != nil {
		spec.schema(in.Properties)
	}
	t := &sdk.Tool{
		Name: spec.name, Title: spec.title, Description: spec.description, InputSchema: in,
		Annotations: &sdk.ToolAnnotations{
			Title: spec.title, ReadOnlyHint: spec.readOnly, DestructiveHint: ptr(false),
			IdempotentHint: spec.readOnly, OpenWorldHint: ptr(false),
		},
	}
	handler := func(ctx context.Context, _ *sdk.CallToolRequest, args In) (_ *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("%s panicked: %v\n%s", spec.name, r, debug.Stack())
				err = fmt.Errorf("%s: internal error: %v (the server log has the details)", spec.name, r)
			}
		}()
		out, err = h(ctx, args)
		if err != nil {
			return nil, out, fmt.Errorf("%s: %w", spec.name, err)
		}
		return nil, out, nil
	}
	return tool{name: spec.name, add: func(srv *sdk.Server) { sdk.AddTool(srv, t, handler) }}
}

func ptr[T any](v T) *T { return &v }

// Schema helpers: each sets a limit on a property, if it exists.

func maxLen(props map[string]*jsonschema.Schema, name string, n int) {
	if p := props[name]; p != nil {
		p.MaxLength = ptr(n)
	}
}

func minLen(props map[string]*jsonschema.Schema, name string, n int) {
	if p := props[name]; p != nil {
		p.MinLength = ptr(n)
	}
}

func between(props map[string]*jsonschema.Schema, name string, lo, hi float64) {
	if p := props[name]; p != nil {
		p.Minimum, p.Maximum = ptr(lo), ptr(hi)
	}
}

func enum(props map[string]*jsonschema.Schema, name string, values ...any) {
	if p := props[name]; p != nil {
		p.Enum = values
	}
}

// checkLen refuses a string argument over n bytes (the schema says so
// too; this holds when a client skips the schema).
func checkLen(name, v string, n int) error {
	if len(v) > n {
		return fmt.Errorf("%s of %d bytes: the limit is %d", name, len(v), n)
	}
	return nil
}

// checkRange refuses a number argument outside [lo, hi].
func checkRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d is out of range: want %d to %d", name, v, lo, hi)
	}
	return nil
}

// tools returns every tool, in the order they are listed.
func (s *Service) tools() []tool {
	return []tool{
		s.searchTool(), s.routeTool(),
		s.callersTool(), s.calleesTool(), s.blastRadiusTool(), s.symbolsTool(),
		s.memorySearchTool(), s.injectContextTool(),
		s.recordCorrectionTool(), s.proposeTool(), s.listRulesTool(),
	}
}

// maxQuoted is the longest quoted value an error message repeats: the
// SDK's schema errors quote the offending argument, which may be huge.
const maxQuoted = 60

// shortErrors is middleware that shortens the text of tool errors, so
// that an error about a huge argument does not repeat it.
func shortErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && r.IsError {
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					tc.Text = elideMiddle(elideQuoted(tc.Text, maxQuoted), maxErrorText)
				}
			}
		}
		return res, err
	}
}

// maxErrorText is the longest tool error text: the SDK's schema errors
// repeat some invalid values without quotes ("enum: VALUE does not equal
// any of: [...]"), and such a value may be megabytes long.
const maxErrorText = 1024

// elideMiddle cuts s to at most about n bytes by leaving out its middle
// (on rune boundaries), saying how many bytes were left out: the start
// says what was validated, the end what was expected.
func elideMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n/2, len(s)-n/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s… (%d bytes left out) …%s", s[:head], tail-head, s[tail:])
}

// elideQuoted cuts every double-quoted run of text longer than n bytes
// to its first n bytes (on a rune boundary) and the number of bytes left
// out.
func elideQuoted(s string, n int) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			j = len(s) - i - 1
		}
		quoted := s[i+1 : i+1+j]
		b.WriteString(s[:i+1])
		if len(quoted) > n {
			cut := n
			for cut > 0 && !utf8.RuneStart(quoted[cut]) {
				cut--
			}
			fmt.Fprintf(&b, "%s… (%d more bytes)", quoted[:cut], len(quoted)-cut)
		} else {
			b.WriteString(quoted)
		}
		s = s[i+1+j:]
		if s == "" {
			return b.String()
		}
		b.WriteByte('"')
		s = s[1:]
	}
}
