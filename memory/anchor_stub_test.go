package memory

import (
	"strings"
	"testing"

	"github.com/anchorage-dev/anchorage/analysis"
)

func TestAnchorStub(t *testing.T) {
	tests := []struct {
		name string
		lang string
		kind analysis.Kind
		text string
		want bool
	}{
		{"go interface method", "go", analysis.KindMethod, "\tRename(from, to string) error", true},
		{"go method", "go", analysis.KindMethod, "func (fs *BoundOS) Rename(from, to string) error {\n\treturn os.Rename(from, to)\n}", false},
		{"go one-line body", "go", analysis.KindFunction, "func f() int { return 1 }", false},
		{"go assembly declaration", "go", analysis.KindFunction, "func archSqrt(x float64) float64", true},
		{"go type", "go", analysis.KindStruct, "type T struct", false},
		{"python pass", "python", analysis.KindMethod, "    def pause_writing(self):\n        \"\"\"Called when the buffer goes over the high-water mark.\n\n        More text.\n        \"\"\"\n        pass", true},
		{"python docstring only", "python", analysis.KindMethod, "    def f(self):\n        \"\"\"Only a docstring.\"\"\"", true},
		{"python not implemented", "python", analysis.KindMethod, "    def run(self,\n            arg):\n        raise NotImplementedError('subclass')", true},
		{"python ellipsis on one line", "python", analysis.KindFunction, "def f(x) -> int: ...", true},
		{"python body", "python", analysis.KindMethod, "    def close(self):\n        # close it\n        if self._closed:\n            return\n        self._closed = True", false},
		{"python docstring then code", "python", analysis.KindFunction, "def f():\n    '''Doc.'''\n    return 1", false},
		{"java interface method", "java", analysis.KindMethod, "    User findById(String id);", true},
		{"java method", "java", analysis.KindMethod, "    public User findById(String id) {\n        return null;\n    }", false},
		{"unknown language", "cobol", analysis.KindFunction, "PROCEDURE", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sym := analysis.SymbolInfo{Language: tt.lang, Kind: tt.kind}
			if got := anchorStub(sym, tt.text); got != tt.want {
				t.Errorf("anchorStub(%s %s, %q) = %v, want %v", tt.lang, tt.kind, tt.text, got, tt.want)
			}
		})
	}
}

func TestPlatformOf(t *testing.T) {
	tests := []struct{ file, want string }{
		{"osfs/os_plan9.go", "plan9"},
		{"osfs/os_wasip1.go", "wasip1"},
		{"osfs/os_posix.go", ""},
		{"osfs/os_windows_test.go", "windows"},
		{"popen_spawn_win32.py", "win32"},
		{"windows_events.py", "windows"},
		{"json/encode.go", ""},
		{"syscall/js/js.go", "js"},
		{"winding.go", ""},
	}
	for _, tt := range tests {
		if got := platformOf(tt.file); got != tt.want {
			t.Errorf("platformOf(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

// TestAnchorPlatformFeature checks that the platform feature is set for a
// platform's own file unless the rule names the platform.
func TestAnchorPlatformFeature(t *testing.T) {
	for _, tt := range []struct {
		rule string
		want float64
	}{
		{"Never rename the base directory of the filesystem", 1},
		{"On plan9, never rename the base directory of the filesystem", 0},
	} {
		rq := analyzeAnchorRule(tt.rule)
		c := &anchorCand{sym: analysis.SymbolInfo{Name: "rename", QualifiedName: "osfs.rename", Path: "osfs/os_plan9.go", Language: "go", Kind: analysis.KindFunction}, rank: -1}
		if got := rq.features(c, "func rename(from, to string) error {}", nil).Platform; got != tt.want {
			t.Errorf("%q: Platform = %v, want %v", tt.rule, got, tt.want)
		}
	}
}

// FuzzAnchorStub checks that any source text is judged without a panic,
// that Go code with a brace is never a stub, and that Python code whose
// body holds a call is never one.
func FuzzAnchorStub(f *testing.F) {
	f.Add("go", "\tRename(from, to string) error")
	f.Add("python", "    def f(self):\n        \"\"\"Doc.\n        \"\"\"\n        pass")
	f.Add("python", "def f(x) -> int: ...")
	f.Add("python", "def f(\n    x,\n):\n    '''a'''\n    return x")
	f.Add("java", "User findById(String id);")
	f.Fuzz(func(t *testing.T, lang, text string) {
		stub := anchorStub(analysis.SymbolInfo{Language: lang, Kind: analysis.KindMethod}, text)
		if NormalizeLanguage(lang) == "go" && strings.Contains(text, "{") && stub {
			t.Errorf("Go code with a body is a stub: %q", text)
		}
		if NormalizeLanguage(lang) == "python" && stub {
			if py := "def f(self):\n    " + text + "\n    call()"; anchorStub(analysis.SymbolInfo{Language: lang, Kind: analysis.KindMethod}, py) && !strings.ContainsAny(text, "\"'\n#") {
				t.Errorf("Python code with a call is a stub: %q", py)
			}
		}
	})
}
