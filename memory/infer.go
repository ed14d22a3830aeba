package memory

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// This file is the deterministic fallback's judgement of a cluster's
// scope and category, from its words. It follows the reference (language
// keywords first, then universal keywords, then the project), matching
// whole words rather than substrings ("important" does not mention
// "import"), and counting an ambiguous keyword ("async": Python,
// JavaScript, TypeScript or Rust) only for a language the corrections'
// files are in.

// scopeLanguageMentions are words that name a language outright; "Go" is
// handled apart (see explicitLanguage).
var scopeLanguageMentions = map[string]string{
	"golang": "go", "python": "python", "py": "python", "typescript": "typescript", "ts": "typescript",
	"tsx": "typescript", "javascript": "javascript", "js": "javascript", "jsx": "javascript",
	"nodejs": "javascript", "rust": "rust", "java": "java",
}

// scopeGoFollowers are words after a lower-case "go" that make it the
// language ("go code", "go files").
var scopeGoFollowers = wordSet("code", "file", "files", "source", "package", "packages", "module", "modules", "program",
	"programs", "project", "projects", "test", "tests", "style", "idiom", "idioms", "service", "services")

// scopeLanguageKeywords are words specific to one language.
var scopeLanguageKeywords = map[string]string{
	"panic": "go", "panicking": "go", "goroutine": "go", "defer": "go", "gofmt": "go", "goimports": "go", "errgroup": "go",
	"iota": "go", "golangci": "go", "chan": "go",
	"pep8": "python", "pep": "python", "pytest": "python", "docstring": "python",
	"mypy": "python", "pip": "python", "venv": "python", "virtualenv": "python", "dataclass": "python",
	"pydantic": "python", "flake8": "python", "ruff": "python", "asyncio": "python", "django": "python",
	"flask":    "python",
	"tsconfig": "typescript", "tsc": "typescript", "tslint": "typescript",
	"jquery": "javascript",
	"unwrap": "rust", "borrow": "rust", "borrowing": "rust",
	"clippy": "rust", "cargo": "rust", "rustfmt": "rust", "crate": "rust", "trait": "rust",
	"maven": "java", "gradle": "java", "junit": "java", "lombok": "java", "jvm": "java",
}

// scopeLanguageAPIs are standard-library names, written qualified as in
// code, that belong to one language: a correction about fmt.Errorf is
// about Go. Both the package and the name are matched as written.
var scopeLanguageAPIs = map[string]string{
	"fmt.Errorf": "go", "fmt.Sprintf": "go", "fmt.Printf": "go", "fmt.Println": "go", "fmt.Fprintf": "go",
	"errors.Is": "go", "errors.As": "go", "errors.Join": "go", "errors.Unwrap": "go", "log.Fatal": "go",
	"log.Fatalf": "go", "os.Exit": "go", "context.Context": "go", "context.Background": "go", "context.TODO": "go",
	"sync.Mutex": "go", "sync.WaitGroup": "go", "sync.Once": "go", "http.HandlerFunc": "go", "ioutil.ReadAll": "go",
	"io.ReadAll": "go", "strconv.Itoa": "go", "strconv.Atoi": "go", "time.Sleep": "go", "t.Fatal": "go",
	"t.Fatalf": "go", "t.Errorf": "go", "t.Helper": "go", "sql.ErrNoRows": "go", "slog.Info": "go",
	"os.path": "python", "os.environ": "python", "sys.exit": "python", "logging.getLogger": "python",
	"json.dumps": "python", "json.loads": "python", "subprocess.run": "python", "pathlib.Path": "python",
	"typing.Optional": "python", "asyncio.run": "python", "self.assertEqual": "python", "pytest.raises": "python",
	"console.log": "javascript", "console.error": "javascript", "JSON.stringify": "javascript", "JSON.parse": "javascript",
	"process.env": "javascript", "module.exports": "javascript", "document.querySelector": "javascript",
	"Promise.all": "javascript", "Object.keys": "javascript", "Array.isArray": "javascript",
	"Box::new": "rust", "Vec::new": "rust", "String::from": "rust", "Arc::new": "rust", "Rc::new": "rust",
	"Result::Ok": "rust", "Option::None": "rust", "std::io": "rust", "tokio::spawn": "rust",
	"System.out": "java", "System.err": "java", "String.format": "java", "Optional.of": "java",
	"Optional.empty": "java", "Collections.emptyList": "java", "List.of": "java", "Objects.requireNonNull": "java",
}

// scopeLanguageSigils are marks of code that only one language writes.
var scopeLanguageSigils = map[string]string{"%w": "go", ":=": "go", "if err != nil": "go", "println!": "rust"}

// languageAPIs returns the languages whose standard-library names or
// sigils text writes, each once, with the first name found for it.
func languageAPIs(text string) map[string]string {
	out := map[string]string{}
	for _, m := range qualifiedName.FindAllString(text, -1) {
		if l, ok := scopeLanguageAPIs[m]; ok && out[l] == "" {
			out[l] = m
		}
	}
	for _, sig := range slices.Sorted(maps.Keys(scopeLanguageSigils)) {
		if l := scopeLanguageSigils[sig]; strings.Contains(text, sig) && out[l] == "" {
			out[l] = sig
		}
	}
	return out
}

// qualifiedName matches a name qualified with a package, module or type
// as code writes it: fmt.Errorf, os.path, Box::new.
var qualifiedName = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.|::)[A-Za-z_][A-Za-z0-9_]*`)

// scopeAmbiguousKeywords are words of several languages: they count only for
// a language the corrections' files are in.
var scopeAmbiguousKeywords = map[string][]string{
	"async":     {"python", "javascript", "typescript", "rust"},
	"await":     {"python", "javascript", "typescript", "rust"},
	"promise":   {"javascript", "typescript"},
	"interface": {"go", "java", "typescript"},
	"import":    {"python", "javascript", "typescript", "java", "go"},
	"exception": {"python", "java"},
	"null":      {"java", "javascript", "typescript"},
	"nil":       {"go"},
	"npm":       {"javascript", "typescript"},
	"eslint":    {"javascript", "typescript"},
	"prettier":  {"javascript", "typescript"},
	"self":      {"python", "rust"},
	"struct":    {"go", "rust"},
	"unsafe":    {"rust", "go"},
	"lifetime":  {"rust"},
	"except":    {"python"},
}

// scopeUniversalTokens are normalised words (see classifyProseWord) of rules about
// how to write or answer rather than about code of one kind.
var scopeUniversalTokens = wordSet("concise", "token", "summary", "response", "explanation", "emoji", "ton", "tone")

// scopeUniversalPhrases are pairs of words with the same meaning.
var scopeUniversalPhrases = [][2]string{{"file", "size"}, {"line", "limit"}, {"line", "length"}, {"commit", "message"}}

// categoryStyleTokens are normalised words of preferences rather than rules.
var categoryStyleTokens = wordSet("concise", "styl", "style", "ton", "tone", "emoji", "format", "formatting", "indentation",
	"whitespace", "wording", "phrasing", "readability", "readabl")

// scopeGuess is what inferScope decided, and why.
type scopeGuess struct {
	scope    string
	language string // the language, for a language scope
	reason   string
}

// proseLowerParts returns the lower-case words of text, identifiers split into
// their parts too, with a final plural s dropped from each word of more
// than three letters ("goroutines" → "goroutine").
func proseLowerParts(text string) []string {
	var out []string
	for _, raw := range splitProseWords(text) {
		ws := []string{raw}
		if parts := splitIdentParts(strings.ReplaceAll(raw, "'", "")); len(parts) > 1 {
			ws = append(ws, parts...)
		}
		for _, w := range ws {
			w = strings.ToLower(w)
			if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1]
			}
			out = append(out, w)
		}
	}
	return out
}

// explicitLanguage returns the languages text names outright.
func explicitLanguage(text string) []string {
	words := splitProseWords(text)
	var out []string
	for i, w := range words {
		lw := strings.ToLower(w)
		if l, ok := scopeLanguageMentions[lw]; ok {
			out = append(out, l)
			continue
		}
		if lw == "go" && (w == "Go" && i > 0 || i+1 < len(words) && scopeGoFollowers[strings.ToLower(words[i+1])]) {
			out = append(out, "go")
		}
	}
	return out
}

// inferScope decides a cluster's scope from its texts (canonical first),
// the languages of the files its corrections were made in, and the
// project (or ""):
//
//  1. A language the texts name ("in Go", "Python"), whose standard
//     library they name as code does ("fmt.Errorf", "console.log") or
//     whose keywords they use ("panic", "unwrap"; an ambiguous one such as
//     "async" only for a language of the files) makes language:<lang>: a
//     naming or a library name counts 3 per text, a keyword 2; the highest
//     total wins, ties going to the language of more files.
//  2. Else words about writing or answering in general ("concise",
//     "token", "summary", "file size", "line limit") make universal.
//  3. Else the rule is about this code base: project:<project>, or
//     universal when no project is known.
func inferScope(texts []string, fileLangs map[string]int, project string) scopeGuess {
	points := map[string]int{}
	why := map[string]string{}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, l := range explicitLanguage(t) {
			if !seen["="+l] {
				seen["="+l] = true
				points[l] += 3
				if why[l] == "" {
					why[l] = fmt.Sprintf("the correction names %s", languageProseName(l))
				}
			}
		}
		for l, name := range languageAPIs(t) {
			// A standard-library name counts like naming the language.
			points[l] += 3
			if why[l] == "" {
				why[l] = fmt.Sprintf("%s is %s's", name, languageProseName(l))
			}
		}
		for _, w := range proseLowerParts(t) {
			if seen[w] {
				continue
			}
			seen[w] = true
			if l, ok := scopeLanguageKeywords[w]; ok {
				points[l] += 2
				if why[l] == "" {
					why[l] = fmt.Sprintf("%q is specific to %s", w, languageProseName(l))
				}
			}
			for _, l := range scopeAmbiguousKeywords[w] {
				if fileLangs[l] > 0 {
					points[l] += 2
					if why[l] == "" {
						why[l] = fmt.Sprintf("%q in %s files", w, languageProseName(l))
					}
				}
			}
		}
	}
	best, bestPoints, tie := "", 0, false
	for _, l := range slices.Sorted(maps.Keys(points)) {
		p := points[l]
		switch {
		case p > bestPoints || p == bestPoints && fileLangs[l] > fileLangs[best]:
			best, bestPoints, tie = l, p, false
		case p == bestPoints && fileLangs[l] == fileLangs[best]:
			tie = true
		}
	}
	if bestPoints >= 2 && !tie {
		return scopeGuess{scope: KindLanguage + ":" + best, language: best, reason: why[best]}
	}

	for _, t := range texts {
		f := analyzeProse(t)
		for _, tok := range f.tokens {
			if scopeUniversalTokens[tok] {
				return scopeGuess{scope: ScopeUniversal, reason: fmt.Sprintf("%q applies to any project", tok)}
			}
		}
		words := proseLowerParts(t)
		for i := 0; i+1 < len(words); i++ {
			for _, p := range scopeUniversalPhrases {
				if words[i] == p[0] && words[i+1] == p[1] {
					return scopeGuess{scope: ScopeUniversal, reason: fmt.Sprintf("%q applies to any project", p[0]+" "+p[1])}
				}
			}
		}
	}
	if project != "" {
		return scopeGuess{scope: KindProject + ":" + project, reason: fmt.Sprintf("no language or general keyword: about project %s", project)}
	}
	return scopeGuess{scope: ScopeUniversal, reason: "no language or general keyword, and no project known"}
}

// languageProseName is a language's name as written in prose.
func languageProseName(l string) string {
	switch l {
	case "go":
		return "Go"
	case "javascript":
		return "JavaScript"
	case "typescript":
		return "TypeScript"
	}
	if l == "" {
		return l
	}
	return strings.ToUpper(l[:1]) + l[1:]
}

// inferCategory decides a cluster's category from its canonical text:
// a preference when it is about style or says "prefer", a rule when it
// is a directive, else a correction.
func inferCategory(text string) string {
	f := analyzeProse(text)
	for _, t := range f.tokens {
		if categoryStyleTokens[t] {
			return CategoryPreference
		}
	}
	for _, w := range proseLowerParts(text) {
		if w == "prefer" || w == "preferably" || w == "preferred" {
			return CategoryPreference
		}
	}
	if f.directive {
		return CategoryRule
	}
	return CategoryCorrection
}
