package cli

import (
	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/internal/feature"
	"github.com/anchorage-dev/anchorage/internal/fname"
)

// The index keeps a file's path as the bytes the file system gave. The
// functions below quote the paths of an answer in place before it is
// printed, as text or JSON, so that a name that is not valid UTF-8 is
// shown with \xNN escapes (fname.Quote) instead of U+FFFD, and can be
// opened and given back to a command.

func quoteSymbol(s *analysis.SymbolInfo) {
	s.Path = fname.Quote(s.Path)
}

func quoteSymbols(syms []analysis.SymbolInfo) {
	for i := range syms {
		quoteSymbol(&syms[i])
	}
}

func quoteRelations(rels []analysis.Relation) {
	for i := range rels {
		if rels[i].Symbol.Name != "" {
			quoteSymbol(&rels[i].Symbol)
		}
	}
}

// quoteAnswer quotes the paths of a graph answer.
func quoteAnswer(a *analysis.Answer) {
	for i := range a.Definitions {
		d := &a.Definitions[i]
		quoteSymbol(&d.Definition)
		switch r := d.Result.(type) {
		case []analysis.CallSite:
			for j := range r {
				r[j].Path = fname.Quote(r[j].Path)
				quoteSymbol(&r[j].Caller)
				if r[j].Callee != nil {
					c := *r[j].Callee
					quoteSymbol(&c)
					r[j].Callee = &c
				}
			}
		case *analysis.InheritanceResult:
			quoteRelations(r.Bases)
			quoteRelations(r.Derived)
		case []analysis.Relation:
			quoteRelations(r)
		}
	}
}

func quoteImports(imps []analysis.Import) {
	for i := range imps {
		imps[i].Path = fname.Quote(imps[i].Path)
		imps[i].Target = fname.Quote(imps[i].Target)
	}
}

func quoteStrings(ss []string) {
	for i := range ss {
		ss[i] = fname.Quote(ss[i])
	}
}

// quoteResponse quotes the paths of a search's results.
func quoteResponse(a *feature.SearchAnswer) {
	for i := range a.Results {
		a.Results[i].File = fname.Quote(a.Results[i].File)
	}
	if a.Response == nil {
		return
	}
	r := a.Response
	for i := range r.Results {
		r.Results[i].File = fname.Quote(r.Results[i].File)
	}
	for i := range r.Files {
		f := &r.Files[i]
		f.File = fname.Quote(f.File)
		for j := range f.Functions {
			f.Functions[j].File = fname.Quote(f.Functions[j].File)
		}
	}
}
