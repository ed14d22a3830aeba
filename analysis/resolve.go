package analysis

import (
	"path"
	"strings"
)

// languageFamily groups languages that call each other directly.
func languageFamily(lang string) string {
	switch lang {
	case "javascript", "typescript", "tsx":
		return "js"
	}
	return lang
}

// familyLanguages lists, as SQL string literals, the languages of the
// family of lang.
func familyLanguages(lang string) string {
	if languageFamily(lang) == "js" {
		return `'javascript', 'typescript', 'tsx'`
	}
	return "'" + strings.ReplaceAll(lang, "'", "''") + "'"
}

// resolver picks the definitions a reference most likely reaches among the
// definitions of its name, without type information. For a reference from
// a file in language family F:
//
//   - only definitions in F count, and only callables for calls and types
//     for inheritance; a bare name reaches methods only where the receiver
//     is implicit (Java), and in Go, Rust and Python a qualified name
//     reaches a plain function only through its package or module;
//   - a qualifier naming the definition's package, module or owner type
//     (users.NewService, UserRepository.find) wins outright;
//   - self, this, cls and super prefer the caller's own type;
//   - a qualifier that is part of the owner's name (repo → UserRepository)
//     comes next;
//   - an unqualified name prefers the caller's file, then its directory
//     (a Go package);
//   - otherwise every definition in F fits equally.
//
// All definitions with the best fit are returned. A resolver is built once
// per name and memoizes by what decides the fit, so resolving thousands of
// call sites of a common name (String, Close) stays linear.
type resolver struct {
	cands []resolvable
	// memo holds the best fits of each key, as indexes into cands: a
	// common name has hundreds of definitions, too many to copy per key.
	memo map[resolveKey][]int32
}

// resolvable is a candidate definition with what resolution compares.
type resolvable struct {
	sym    SymbolInfo
	family string
	owner  string // lower case
	module string // lower case
	dir    string
}

type resolveKey struct {
	family, qualifier, path, callerOwner string
	types                                bool
}

func newResolver(cands []SymbolInfo) *resolver {
	r := &resolver{memo: map[resolveKey][]int32{}}
	for _, c := range cands {
		r.cands = append(r.cands, resolvable{
			sym: c, family: languageFamily(c.Language),
			owner: strings.ToLower(c.Owner()), module: strings.ToLower(c.Module), dir: path.Dir(c.Path),
		})
	}
	return r
}

// resolve returns the definitions e most likely reaches, or none when its
// name is defined nowhere in its language family.
func (r *resolver) resolve(e edgeRow) []SymbolInfo {
	best := r.fits(e)
	out := make([]SymbolInfo, len(best))
	for i, c := range best {
		out[i] = r.cands[c].sym
	}
	return out
}

// reaches reports whether e most likely reaches the definition id, and
// among how many definitions that fit as well.
func (r *resolver) reaches(e edgeRow, id int64) (bool, int) {
	best := r.fits(e)
	for _, c := range best {
		if r.cands[c].sym.ID == id {
			return true, len(best)
		}
	}
	return false, len(best)
}

// fits returns the indexes in r.cands of the definitions e most likely
// reaches.
func (r *resolver) fits(e edgeRow) []int32 {
	key := resolveKey{
		family:    languageFamily(e.source.Language),
		qualifier: e.qualifier,
		types:     e.kind != EdgeCalls,
	}
	switch {
	case e.qualifier == "":
		key.path = e.source.Path
	case isSelf(e.qualifier):
		key.callerOwner = strings.ToLower(callerOwner(e.source))
	}
	if best, ok := r.memo[key]; ok {
		return best
	}
	best := r.pick(key)
	r.memo[key] = best
	return best
}

func (r *resolver) pick(k resolveKey) []int32 {
	var best []int32
	bestScore := 0
	q := strings.ToLower(k.qualifier)
	dir := path.Dir(k.path)
	for i := range r.cands {
		c := &r.cands[i]
		if c.family != k.family {
			continue
		}
		if k.types && !c.sym.Kind.IsType() || !k.types && !c.sym.Kind.IsCallable() {
			continue
		}
		if q == "" && c.sym.Kind == KindMethod && !implicitReceiver(k.family) {
			continue // Go's string(b) is not a call to some type's string method
		}
		if q != "" && c.sym.Kind == KindFunction && qualifiedByModule(k.family) && q != c.module {
			continue // x.init() is not a call to package big's func init
		}
		score := 1
		switch {
		case q == "":
			if c.sym.Path == k.path {
				score += 3
			} else if c.dir == dir {
				score += 2
			}
		case q == c.module || c.owner != "" && q == c.owner:
			score += 4
		case k.callerOwner != "":
			if c.owner != "" && c.owner == k.callerOwner {
				score += 4
			}
		case c.owner != "" && len(q) >= 3 && (strings.Contains(c.owner, q) || strings.Contains(q, c.owner)):
			score += 2
		}
		switch {
		case score > bestScore:
			best, bestScore = append(best[:0], int32(i)), score
		case score == bestScore:
			best = append(best, int32(i))
		}
	}
	return best
}

// implicitReceiver reports whether, in a language family, a method can be
// called by its bare name from another method of its class.
func implicitReceiver(family string) bool {
	return family == "java"
}

// qualifiedByModule reports whether, in a language family, a qualified
// call reaches a plain function only through its package or module
// (pkg.F(), module::f(), module.f()); other qualifiers are receivers.
func qualifiedByModule(family string) bool {
	switch family {
	case "go", "rust", "python":
		return true
	}
	return false
}

func isSelf(q string) bool {
	switch q {
	case "self", "this", "cls", "Self", "super":
		return true
	}
	return false
}

// callerOwner returns the type whose method is making a reference.
func callerOwner(s SymbolInfo) string {
	if s.Kind.IsType() {
		return s.Name
	}
	return s.Owner()
}
