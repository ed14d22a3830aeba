package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scopes and scope kinds. A scope is "universal", "language:<lang>" or
// "project:<name>".
const (
	// ScopeUniversal applies everywhere.
	ScopeUniversal = "universal"
	// KindLanguage is the kind of language:<lang> scopes.
	KindLanguage = "language"
	// KindProject is the kind of project:<name> scopes.
	KindProject = "project"
)

// maxScopeName is the longest language or project name a scope may hold.
const maxScopeName = 100

// scopeLanguageAliases maps names and abbreviations of languages to the names
// scopes use. TSX is TypeScript for rules.
var scopeLanguageAliases = map[string]string{
	"go": "go", "golang": "go",
	"python": "python", "py": "python", "python3": "python",
	"javascript": "javascript", "js": "javascript", "jsx": "javascript", "node": "javascript", "nodejs": "javascript",
	"typescript": "typescript", "ts": "typescript", "tsx": "typescript",
	"rust": "rust", "rs": "rust",
	"java": "java",
}

// scopeExtLanguages maps file extensions to language names.
var scopeExtLanguages = map[string]string{
	".go": "go",
	".py": "python", ".pyi": "python",
	".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescript",
	".rs":   "rust",
	".java": "java",
}

// LanguageOfFile returns the language of a file by its extension, as
// language scopes name it ("go", "python", "typescript" for .ts and .tsx,
// …), or "" for a file in no known language.
func LanguageOfFile(path string) string {
	return scopeExtLanguages[strings.ToLower(filepath.Ext(path))]
}

// NormalizeLanguage returns the scope name of a language given by name or
// abbreviation ("golang" → "go", "ts" → "typescript"); an unknown name is
// lowercased and kept if it is a plausible language name
// ([a-z][a-z0-9+#._-]*), else "" is returned.
func NormalizeLanguage(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if l, ok := scopeLanguageAliases[name]; ok {
		return l
	}
	if name == "" || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return ""
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+#._-", r)) {
			return ""
		}
	}
	return name
}

// ProjectName returns the project name of a workspace root: the base
// name of its absolute, cleaned path ("/home/me/src/xcalibr" → "xcalibr").
func ProjectName(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	base := filepath.Base(filepath.Clean(root))
	if base == "." || base == string(filepath.Separator) || base == "" {
		return ""
	}
	p, err := checkProjectName(base)
	if err != nil {
		return ""
	}
	return p
}

// checkProjectName trims a project name and checks that it is printable
// text of at most maxScopeName characters.
func checkProjectName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", fmt.Errorf("%w: empty project name", ErrInvalidScope)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("%w: project name is not valid UTF-8", ErrInvalidScope)
	case utf8.RuneCountInString(name) > maxScopeName:
		return "", fmt.Errorf("%w: project name longer than %d characters", ErrInvalidScope, maxScopeName)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return "", fmt.Errorf("%w: project name %q has unprintable characters", ErrInvalidScope, name)
	}
	return name, nil
}

// LanguageScope returns the scope of rules for one language.
func LanguageScope(lang string) string { return KindLanguage + ":" + NormalizeLanguage(lang) }

// ProjectScope returns the scope of rules for one project.
func ProjectScope(name string) string { return KindProject + ":" + strings.TrimSpace(name) }

// NormalizeScope checks a scope and returns it in canonical form:
// "universal", "language:<lang>" with the language normalised as
// NormalizeLanguage does, or "project:<name>" with the name trimmed.
// Anything else is ErrInvalidScope.
func NormalizeScope(scope string) (string, error) {
	scope = strings.TrimSpace(scope)
	kind, name, found := strings.Cut(scope, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	switch {
	case !found && kind == ScopeUniversal:
		return ScopeUniversal, nil
	case found && kind == KindLanguage:
		l := NormalizeLanguage(name)
		if l == "" {
			return "", fmt.Errorf("%w: %q: %q is not a language name", ErrInvalidScope, scope, strings.TrimSpace(name))
		}
		return KindLanguage + ":" + l, nil
	case found && kind == KindProject:
		p, err := checkProjectName(name)
		if err != nil {
			return "", fmt.Errorf("scope %q: %w", scope, err)
		}
		return KindProject + ":" + p, nil
	}
	return "", fmt.Errorf("%w: %q (want universal, language:<lang> or project:<name>)", ErrInvalidScope, scope)
}

// scopeKind returns "universal", "language" or "project" for a
// normalised scope.
func scopeKind(scope string) string {
	kind, _, _ := strings.Cut(scope, ":")
	return kind
}

// scopeName returns the language or project a scope names, or "".
func scopeName(scope string) string {
	_, name, _ := strings.Cut(scope, ":")
	return name
}

// ScopesFor returns the scopes whose rules apply to a file in language
// lang of project project: universal, then language:<lang> and
// project:<project> for those given.
func ScopesFor(lang, project string) []string {
	out := []string{ScopeUniversal}
	if l := NormalizeLanguage(lang); l != "" {
		out = append(out, KindLanguage+":"+l)
	}
	if p, err := checkProjectName(project); err == nil {
		out = append(out, KindProject+":"+p)
	}
	return out
}

// scopesOverlap reports whether rules in scopes a and b can apply to the
// same code: always, unless both are languages or both are projects and
// they name different ones.
func scopesOverlap(a, b string) bool {
	if a == b || a == ScopeUniversal || b == ScopeUniversal {
		return true
	}
	return scopeKind(a) != scopeKind(b)
}

// scopeCovers reports whether scope a includes scope b: a is b, or
// universal.
func scopeCovers(a, b string) bool {
	return a == b || a == ScopeUniversal
}
