package retrieval

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtractEvidence(t *testing.T) {
	has := func(ms []Mention, text, source string) bool {
		return slices.ContainsFunc(ms, func(m Mention) bool { return m.Text == text && (source == "" || m.Source == source) })
	}
	tests := []struct {
		name                 string
		text                 string
		paths, modules       []string
		names                []string
		source               string // of the names
		notNames, notModules []string
	}{
		{
			name:  "python traceback",
			text:  "Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/astropy/io/fits/card.py\", line 1270, in _format_float\n    value_str = f\"{value:.16G}\"\nValueError: bad",
			paths: []string{"/usr/lib/python3/site-packages/astropy/io/fits/card.py"}, names: []string{"_format_float"}, source: "traceback",
		},
		{
			name:  "go stack",
			text:  "panic: boom\n\ngoroutine 1 [running]:\nnet/http.(*conn).serve(0xc000)\n\t/usr/local/go/src/net/http/server.go:1850 +0x1d\nmain.main()\n\t/x/main.go:9",
			paths: []string{"/usr/local/go/src/net/http/server.go", "/x/main.go"}, names: []string{"serve", "conn.serve"}, source: "traceback",
		},
		{
			name:  "java stack",
			text:  "Exception in thread \"main\" java.lang.IllegalStateException\n\tat com.example.users.UserService.rename(UserService.java:42)\n\tat com.example.Main.main(Main.java:7)",
			paths: []string{"UserService.java", "Main.java"}, names: []string{"rename", "UserService.rename"}, source: "traceback",
		},
		{
			name:  "javascript stack",
			text:  "TypeError: x is undefined\n    at fetchUser (/app/client/src/api.ts:17:5)\n    at async main (/app/client/src/index.ts:3:1)",
			paths: []string{"/app/client/src/api.ts", "/app/client/src/index.ts"}, names: []string{"fetchUser"}, source: "traceback",
		},
		{
			name:  "diff",
			text:  "diff --git a/users/repo.go b/users/repo.go\n--- a/users/repo.go\n+++ b/users/repo.go\n@@ -10,3 +10,3 @@ func (r *UserRepository) FindByID(ctx context.Context) {\n-\treturn nil\n+\treturn ErrNotFound\n",
			paths: []string{"users/repo.go"}, names: []string{"FindByID", "ErrNotFound"},
		},
		{
			name:    "markdown issue",
			text:    "`Dataset.to_netcdf` drops attributes\n\n```python\nfrom xarray.core import dataset\nds.to_netcdf(\"x.nc\")\n```\n\n- OS: Linux\n- Python version: 3.8\n- numpy: 1.2.3",
			modules: []string{"xarray.core", "xarray.core.dataset"}, names: []string{"Dataset.to_netcdf", "to_netcdf"},
			notNames: []string{"Linux", "version"}, notModules: []string{"1.2.3"},
		},
		{
			name:  "identifiers in prose",
			text:  "The parse_header function and HTTPServer both ignore the timeout; see also www.example.com and version 1.2.3.",
			names: []string{"parse_header", "HTTPServer"}, source: "prose",
			notNames: []string{"timeout", "example.com", "function"}, notModules: []string{"www.example.com", "1.2.3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := ExtractEvidence(tt.text)
			for _, p := range tt.paths {
				if !has(ev.Paths, p, "") {
					t.Errorf("paths %+v, want %q", ev.Paths, p)
				}
			}
			for _, m := range tt.modules {
				if !has(ev.Modules, m, "") {
					t.Errorf("modules %+v, want %q", ev.Modules, m)
				}
			}
			for _, n := range tt.names {
				if !has(ev.Names, n, tt.source) {
					t.Errorf("names %+v, want %q from %q", ev.Names, n, tt.source)
				}
			}
			for _, n := range tt.notNames {
				if has(ev.Names, n, "") {
					t.Errorf("names %+v hold %q", ev.Names, n)
				}
			}
			for _, m := range tt.notModules {
				if has(ev.Modules, m, "") {
					t.Errorf("modules %+v hold %q", ev.Modules, m)
				}
			}
		})
	}
}

func TestPathResolver(t *testing.T) {
	r := newPathResolver([]string{"astropy/io/fits/card.py", "astropy/io/fits/__init__.py", "astropy/io/ascii/core.py",
		"src/_pytest/python.py", "tests/card.py", "xarray/core/dataset.py"})
	for _, tt := range []struct {
		written string
		want    []string
	}{
		{"/usr/lib/python3/site-packages/astropy/io/fits/card.py", []string{"astropy/io/fits/card.py"}},
		{"fits/card.py", []string{"astropy/io/fits/card.py"}},
		{"card.py", []string{"astropy/io/fits/card.py", "tests/card.py"}},
		{"/site-packages/_pytest/python.py", []string{"src/_pytest/python.py"}},
		{"nowhere.py", nil},
	} {
		if got := r.file(tt.written); !slices.Equal(got, tt.want) {
			t.Errorf("file(%q) = %v, want %v", tt.written, got, tt.want)
		}
	}
	for _, tt := range []struct {
		dotted string
		want   []string
		exact  bool
	}{
		{"astropy.io.fits.card", []string{"astropy/io/fits/card.py"}, true},
		{"astropy.io.fits", []string{"astropy/io/fits/__init__.py"}, true},
		{"astropy.io.fits.card.Card", []string{"astropy/io/fits/card.py"}, false},
		{"_pytest.python", []string{"src/_pytest/python.py"}, true},
		{"numpy.linalg", nil, false},
	} {
		got, exact := r.module(tt.dotted)
		if !slices.Equal(got, tt.want) || exact != tt.exact {
			t.Errorf("module(%q) = %v, %v; want %v, %v", tt.dotted, got, exact, tt.want, tt.exact)
		}
	}
}

// FuzzExtractEvidence feeds pasted text of any shape to the evidence
// reader: it must not panic, and what it returns is valid UTF-8 and
// weighted.
func FuzzExtractEvidence(f *testing.F) {
	for _, seed := range []string{
		"", "Traceback (most recent call last):\n  File \"a.py\", line 1, in f", "\tat a.b.C.d(C.java:1)", "diff --git a/x b/x\n@@ -1 +1 @@ def f\n-a\n+b",
		"```\nx.y.z()\n```", "`unterminated", "File \"", "a.b.c.d.e.f.g", strings.Repeat("(", 10000), "\xff\xfe", "goroutine 1 [running]:\nmain.main()\n\t/x.go:1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ev := ExtractEvidence(text)
		for _, set := range [][]Mention{ev.Paths, ev.Modules, ev.Names} {
			for _, m := range set {
				if m.Text == "" || m.Weight <= 0 || m.Source == "" {
					t.Fatalf("mention %+v", m)
				}
				if utf8.ValidString(text) && !utf8.ValidString(m.Text) {
					t.Fatalf("mention %q of valid text is not valid UTF-8", m.Text)
				}
			}
		}
	})
}
