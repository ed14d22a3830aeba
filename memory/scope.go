package memory

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scopes and scope kinds. A personal scope is "universal",
// "language:<lang>" or "project:<name>"; a team scope is "team" (every
// member's code), "team language:<lang>" or "team project:<name>". Team
// rules live in the team's database; a member's memory holds a cache of
// them (see TeamCache).
const (
	// ScopeUniversal applies everywhere.
	ScopeUniversal = "universal"
	// ScopeTeam applies to every member of the team, everywhere; it is
	// also the kind of every team scope ("team language:go").
	ScopeTeam = "team"
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
// NormalizeLanguage does, or "project:<name>" with the name trimmed; or
// one of those three after "team" ("team", "team language:go", "team
// project:P"; "team universal" is "team"). Anything else is
// ErrInvalidScope.
func NormalizeScope(scope string) (string, error) {
	scope = strings.TrimSpace(scope)
	if inner, ok := cutTeam(scope); ok {
		if inner == "" {
			return ScopeTeam, nil
		}
		if _, ok := cutTeam(inner); ok {
			return "", fmt.Errorf("%w: %q: \"team\" is given twice", ErrInvalidScope, scope)
		}
		n, err := NormalizeScope(inner)
		if err != nil {
			return "", err
		}
		return TeamScope(n), nil
	}
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
	return "", fmt.Errorf("%w: %q (want universal, language:<lang> or project:<name>, each optionally after \"team \")", ErrInvalidScope, scope)
}

// cutTeam reports whether scope starts with the word "team" (in any
// case) and returns the rest, trimmed.
func cutTeam(scope string) (rest string, ok bool) {
	if len(scope) < len(ScopeTeam) || !strings.EqualFold(scope[:len(ScopeTeam)], ScopeTeam) {
		return scope, false
	}
	rest = scope[len(ScopeTeam):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return scope, false // "teams:x" is not a team scope
	}
	return strings.TrimSpace(rest), true
}

// IsTeamScope reports whether a normalised scope is a team scope.
func IsTeamScope(scope string) bool {
	_, ok := cutTeam(scope)
	return ok
}

// TeamScope returns the team scope of a normalised personal scope:
// "universal" → "team", "language:go" → "team language:go". A team scope
// is returned as it is.
func TeamScope(scope string) string {
	if IsTeamScope(scope) {
		return scope
	}
	if scope == "" || scope == ScopeUniversal {
		return ScopeTeam
	}
	return ScopeTeam + " " + scope
}

// PersonalScope returns the personal scope a normalised scope applies
// like: "team" → "universal", "team language:go" → "language:go"; a
// personal scope is returned as it is.
func PersonalScope(scope string) string {
	inner, ok := cutTeam(scope)
	if !ok {
		return scope
	}
	if inner == "" {
		return ScopeUniversal
	}
	return inner
}

// scopeKind returns "universal", "language" or "project" for a
// normalised scope; a team scope has the kind of its personal part.
func scopeKind(scope string) string {
	kind, _, _ := strings.Cut(PersonalScope(scope), ":")
	return kind
}

// scopeName returns the language or project a scope names, or "".
func scopeName(scope string) string {
	_, name, _ := strings.Cut(PersonalScope(scope), ":")
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

// TeamScopesFor returns ScopesFor(lang, project) followed by their team
// scopes ("team", "team language:<lang>", "team project:<project>"): the
// scopes whose rules apply to the file for a member of a team.
func TeamScopesFor(lang, project string) []string {
	out := ScopesFor(lang, project)
	for _, sc := range slices.Clone(out) {
		out = append(out, TeamScope(sc))
	}
	return out
}

// scopesOverlap reports whether rules in scopes a and b can apply to the
// same code: always, unless both are languages or both are projects and
// they name different ones. A team scope applies like its personal part.
func scopesOverlap(a, b string) bool {
	a, b = PersonalScope(a), PersonalScope(b)
	if a == b || a == ScopeUniversal || b == ScopeUniversal {
		return true
	}
	return scopeKind(a) != scopeKind(b)
}

// scopeCovers reports whether scope a includes scope b: a is b, or
// universal (a team scope applies like its personal part).
func scopeCovers(a, b string) bool {
	a, b = PersonalScope(a), PersonalScope(b)
	return a == b || a == ScopeUniversal
}
