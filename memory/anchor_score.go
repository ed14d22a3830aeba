package memory

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anchorage-dev/anchorage/analysis"
	"github.com/anchorage-dev/anchorage/retrieval"
	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// anchorTerm is a key term of a rule: a word or identifier part, stemmed as
// the chunk index stems its terms (analysis.AppendTerms).
type anchorTerm struct {
	// word is the term as the rule writes it, lower-case.
	word string
	stem string
	// forms are the stems that count as the term in code: the term's
	// own and those of its code abbreviations ("db" for database).
	forms []string
	// literals are lower-case fragments of code that count as the term
	// ("%w" for wrap).
	literals []string
	weight   float64
	// soft marks the generic words of rules ("call", "argument",
	// "first"): they count, but little.
	soft bool
	// whole marks a whole identifier of several parts (findbyid).
	whole bool
	// keyword marks a word the index leaves out (a language keyword such
	// as defer or return): code is searched for it as it is.
	keyword bool
	// known is set when the workspace's code uses the term.
	known bool
	// rare marks a word that is not a common English word (failfast,
	// readuntil): alone, it can be a name the rule spells.
	rare bool
	// share is the share of the index's chunks that hold the term.
	share float64
}

// anchorQuery is what a rule asks of the code.
type anchorQuery struct {
	terms []anchorTerm
	// idents are the identifiers the rule names, as written
	// (UserRepository.FindByID, sync.Once, writeError).
	idents []string
	// literals are lower-case code fragments the rule quotes
	// (sync.once, %w), looked for verbatim.
	literals []string
	// quoted are the lower-case identifiers the rule names that no
	// English word is written as (ErrFrameTooLarge, addCleanup,
	// auto_spec), looked for verbatim in the code.
	quoted []string
	// words are the rule's key words as written, for the semantic
	// search.
	words []string
	// compounds are the stems of two consecutive words of the rule
	// written as one (wakeup for "wake up", lookup for "look up"), as
	// names write them.
	compounds map[string]bool
	// aboutTests is set for rules about test code.
	aboutTests bool
	// said holds every lower-case word of the rule, identifier parts
	// and the contrast clause included; verbs are the verb families
	// (see anchorVerbFamilies) among them.
	said  map[string]bool
	verbs map[string]bool
	// grounded is the share of the rule's term weight that the
	// workspace's code uses at all (see weighTerms).
	grounded float64
	// code is the code-search word model and vec the rule's key words
	// embedded with it (see vectorSimilarity); vec is nil when none of
	// the words is known to the model.
	code *wordvec.Model
	vec  []float32
	// corpus is log₁₀ of the number of chunks in the index.
	corpus float64
}

// anchorMaxTerms and anchorMaxIdents cap the terms and identifiers taken
// from a long rule: its first ones.
const (
	anchorMaxTerms  = 32
	anchorMaxIdents = 8
)

// analyzeAnchorRule extracts a rule's key terms, identifiers and code
// fragments.
func analyzeAnchorRule(rule string) anchorQuery {
	var rq anchorQuery
	aliases := anchorAliases()
	byStem := map[string]int{}
	addTerm := func(w string, whole bool) {
		if len(rq.terms) >= anchorMaxTerms || utf8.RuneCountInString(w) < 2 || anchorIsNumber(w) || anchorStopWord(w) {
			return
		}
		stem := analysis.Stem(w)
		if i, ok := byStem[stem]; ok {
			rq.terms[i].whole = rq.terms[i].whole || whole
			return
		}
		t := anchorTerm{word: w, stem: stem, whole: whole, soft: anchorSoftWord(w) || anchorSoftWord(stem)}
		t.forms = append([]string{stem}, aliases[stem]...)
		if stem == "wrap" {
			t.literals = []string{"%w"}
		}
		t.keyword = len(analysis.AppendTerms(nil, w)) == 0
		if stem == "test" || stem == "spec" {
			rq.aboutTests = true
		}
		byStem[stem] = len(rq.terms)
		rq.terms = append(rq.terms, t)
		rq.words = append(rq.words, w)
	}
	rq.said = map[string]bool{}
	analysis.CodeWords(rule, func(w string, _, _ int, whole bool) error {
		if !whole {
			rq.said[w] = true
		}
		return nil
	})
	rq.verbs = ruleVerbs(rq.said)
	// What the rule sets its practice against ("instead of string
	// concatenation") describes code that is not the example: its words
	// are left out.
	if lo, hi := anchorContrast(rule); lo >= 0 {
		rule = rule[:lo] + " " + rule[hi:]
	}
	prev := ""
	rq.compounds = map[string]bool{}
	analysis.CodeWords(rule, func(w string, _, _ int, whole bool) error {
		addTerm(w, whole)
		if !whole {
			if prev != "" {
				rq.compounds[analysis.Stem(prev+w)] = true
			}
			prev = w
		}
		return nil
	})

	if rq.aboutTests && anchorTestsAsVerb(rule) {
		rq.aboutTests = false // "so callers can test for it": not about test code
	}

	seenIdent := map[string]bool{}
	fields := strings.Fields(rule)
	for i, f := range fields {
		sentenceStart := i == 0 || strings.ContainsAny(fields[i-1][len(fields[i-1])-1:], ".!?:")
		tok := strings.Trim(f, "\"'`“”‘’,;!?[]{}<>")
		tok = strings.TrimRight(tok, ".:")
		if strings.HasPrefix(tok, "(") {
			tok = strings.TrimLeft(tok, "(")
		}
		if j := strings.Index(tok, "%"); j >= 0 && j+1 < len(tok) && unicode.IsLetter(rune(tok[j+1])) {
			rq.literals = anchorAppendNew(rq.literals, strings.ToLower(tok[j:j+2]))
			continue
		}
		id, ok := anchorIdentifier(tok, sentenceStart, strings.HasPrefix(f, "`"))
		if !ok || seenIdent[id] || len(rq.idents) == anchorMaxIdents || anchorStopWord(strings.ToLower(id)) {
			continue
		}
		seenIdent[id] = true
		rq.idents = append(rq.idents, id)
		if strings.ContainsAny(id, ".:") {
			rq.literals = anchorAppendNew(rq.literals, strings.ToLower(id))
		} else if anchorCodeSpelled(id) {
			rq.quoted = anchorAppendNew(rq.quoted, strings.ToLower(id))
		}
	}
	return rq
}

// anchorTestsAsVerb reports whether every "test" or "tests" of a rule is
// the verb of a check after a modal or "to" ("callers can test for it
// with errors.Is", "remember to test whether the key is set") rather than
// test code ("fuzz tests for parsers").
func anchorTestsAsVerb(rule string) bool {
	fields := strings.Fields(strings.ToLower(rule))
	verb, noun := 0, 0
	for i, f := range fields {
		switch strings.Trim(f, ".,;:!?()\"'`") {
		case "test", "tests", "spec", "specs":
		default:
			continue
		}
		prev := ""
		if i > 0 {
			prev = strings.Trim(fields[i-1], ".,;:!?()\"'`")
		}
		switch prev {
		case "can", "could", "to", "must", "should", "may", "might", "will", "would", "cannot":
			verb++
		default:
			noun++
		}
	}
	return verb > 0 && noun == 0
}

// anchorContrast returns the byte span of the clause in which a rule sets
// its practice against another ("…, instead of X", "…, rather than X",
// "…, never X", "…, not X"), up to the end of the clause, or -1, -1. A
// rule that is all prohibition ("Never use panic") has no such clause:
// what it forbids is what it is about.
func anchorContrast(rule string) (int, int) {
	// Lower case byte for byte: strings.ToLower changes the length of
	// text that is not valid UTF-8, and the indexes are rule's.
	lower := []byte(rule)
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	lo, n := -1, 0
	for _, m := range []string{" instead of ", " rather than ", ", never ", ", not ", "; never ", "; not "} {
		if i := bytes.Index(lower, []byte(m)); i > 0 && (lo < 0 || i < lo) {
			lo, n = i, len(m)
		}
	}
	if lo < 0 {
		return -1, -1
	}
	// The clause ends at a sentence's punctuation, not at the dot of a
	// qualified name (fmt.Sprintf).
	hi := lo + n
	for hi < len(rule) {
		c := rule[hi]
		if c == ';' || c == '!' || c == '?' || (c == '.' || c == ':') && (hi+1 == len(rule) || rule[hi+1] == ' ') {
			break
		}
		hi++
	}
	return lo, hi
}

// anchorCodeSpelled reports whether an identifier is written as only code
// writes words: with an underscore or a capital inside (auto_spec,
// addCleanup, ErrFrameTooLarge).
func anchorCodeSpelled(id string) bool {
	if strings.Contains(strings.Trim(id, "_"), "_") {
		return true
	}
	for i, r := range id {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func anchorAppendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

func anchorIsNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// anchorIdentifier reports whether a word of a rule names code, and
// returns the name: a qualified name (sync.Once, fmt::Display), a name
// with an underscore or inner capitals (from_json, writeError, ApiError),
// a call (run(files) → run), a quoted name, or a capitalised word inside
// a sentence (Close, Repository) that is not an acronym (HTTP).
func anchorIdentifier(tok string, sentenceStart, quoted bool) (string, bool) {
	call := false
	if i := strings.IndexByte(tok, '('); i >= 0 {
		tok, call = tok[:i], true
	}
	tok = strings.Trim(tok, ".:")
	if utf8.RuneCountInString(tok) < 2 {
		return "", false
	}
	first, _ := utf8.DecodeRuneInString(tok)
	if !unicode.IsLetter(first) && first != '_' {
		return "", false
	}
	hasLower, innerUpper, sep := false, false, false
	prevLower := false
	for _, r := range tok {
		switch {
		case r == '.' || r == ':':
			sep = true
		case r == '_':
			sep = true
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				innerUpper = true
			}
			if unicode.IsLower(r) {
				hasLower = true
			}
		default:
			return "", false // a hyphen, a slash: prose
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	switch {
	case !hasLower && !call:
		return "", false // an acronym (HTTP, JDBC) or a constant
	case sep || innerUpper || call || quoted:
		return tok, true
	case unicode.IsUpper(first) && !sentenceStart:
		return tok, true
	}
	return "", false
}

// anchorTopicShare is the share of the index's chunks above which a
// capitalised word of a rule (SQLite, Python) is the workspace's subject
// rather than the name of the one definition the rule is about.
const anchorTopicShare = 0.05

// topicWord reports whether an identifier the rule names is a plain
// capitalised word (no dot, underscore or inner capital after a
// lower-case letter) that more than anchorTopicShare of the chunks use.
func (rq *anchorQuery) topicWord(id string) bool {
	if strings.ContainsAny(id, "._:") {
		return false
	}
	prevLower := false
	for _, r := range id {
		if unicode.IsUpper(r) && prevLower {
			return false
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	stem := analysis.Stem(strings.ToLower(id))
	for _, t := range rq.terms {
		if t.stem == stem || t.word == strings.ToLower(id) {
			return t.share > anchorTopicShare
		}
	}
	return false
}

// searchText is the text the semantic search looks for: the rule's key
// words and named identifiers.
func (rq *anchorQuery) searchText() string {
	var words []string
	for i, w := range rq.words {
		if rq.corpus >= anchorSearchMinCorpus && i < len(rq.terms) && rq.terms[i].share > anchorSearchShare {
			continue
		}
		words = append(words, w)
	}
	if len(words) < 2 {
		words = rq.words // nothing rarer to search for
	}
	return strings.Join(append(append([]string(nil), words...), rq.idents...), " ")
}

// In an index of more than 10⁴·⁵ (about 31,600) chunks, a rule's word
// that more than anchorSearchShare of them hold is left out of the
// semantic search: so common a word ranks few chunks (BM25 weighs it
// little) and costs the most to search in SQLite's text index, which
// scores every chunk that holds it. The features still count it in every
// candidate. In a smaller workspace every word of a rule is searched:
// there a rule's main words are often that common.
const (
	anchorSearchShare     = 0.02
	anchorSearchMinCorpus = 4.5
)

// Term weights: a term weighs 0.25 + 0.75·idf, idf being ln((N+1)/(df+1))
// / ln(N+1) over the N chunks of the index, df of which hold the term (1
// for the rarest, 0 for a term in every chunk). Language keywords, which
// the index does not count, weigh anchorKeywordWeight; the generic words of
// rules a share anchorSoftShare; whole identifiers anchorWholeBoost times more.
// Words the code never uses count in grounding only: a rare English word
// (or none: a product's name, Redis) weighs anchorUnknownWeight, as much
// as the rarest words of the code, for it names what the rule is about;
// a common English word (among the anchorCommonRank most frequent) that
// the code does not use is more likely the rule's phrasing ("hand-written
// loops") and weighs anchorUnknownCommon.
const (
	anchorBaseWeight    = 0.25
	anchorKeywordWeight = 0.35
	anchorSoftShare     = 0.4
	anchorWholeBoost    = 1.5
	anchorUnknownWeight = 1.0
	anchorUnknownCommon = 0.4
	anchorCommonRank    = 20000
)

// weighTerms weighs each term by its inverse document frequency in the
// chunk index and marks the terms the code uses; rq.grounded is the
// known terms' share of the weight.
func (a *Anchorer) weighTerms(ctx context.Context, rq *anchorQuery) error {
	ix := a.Searcher.Index
	chunks, err := ix.ChunkCount(ctx)
	if err != nil {
		return err
	}
	n := float64(chunks)
	english, err := wordvec.Load()
	if err != nil {
		return fmt.Errorf("weigh terms: %w", err)
	}
	var total, known float64
	for i := range rq.terms {
		t := &rq.terms[i]
		if t.keyword {
			t.known, t.weight = true, anchorKeywordWeight
		} else {
			docs, err := ix.TermChunks(ctx, t.forms)
			if err != nil {
				return fmt.Errorf("weigh terms: %w", err)
			}
			var most float64
			for _, d := range docs {
				most = math.Max(most, float64(d))
			}
			if most == 0 {
				// The light stemmer leaves some forms apart (decorator,
				// decorat): a word the code uses that begins the term,
				// or that the term begins, stands for it.
				related, d, err := ix.RelatedTerm(ctx, t.stem)
				if err != nil {
					return fmt.Errorf("weigh terms: %w", err)
				}
				if related != "" {
					t.forms = append(t.forms, related)
					most = float64(d)
				}
			}
			t.known = most > 0
			t.share = most / math.Max(n, 1)
			t.weight = anchorUnknownWeight
			t.rare = true
			if row := english.Row(t.word); row >= 0 && english.Rank(row) <= anchorCommonRank {
				t.weight = anchorUnknownCommon
				t.rare = false
			}
			if t.known {
				idf := math.Log((n+1)/(most+1)) / math.Log(n+2)
				t.weight = anchorBaseWeight + (1-anchorBaseWeight)*math.Max(0, idf)
				if t.whole {
					t.weight *= anchorWholeBoost
				}
			}
		}
		if t.soft {
			t.weight *= anchorSoftShare
		}
		total += t.weight
		if t.known {
			known += t.weight
		}
	}
	rq.code, err = wordvec.LoadCode()
	if err != nil {
		return fmt.Errorf("weigh terms: %w", err)
	}
	rq.vec = rq.code.Embed(strings.Join(append(slices.Clip(rq.words), rq.idents...), " "))
	if !anchorNonZero(rq.vec) {
		rq.vec = nil
	}
	rq.corpus = math.Log10(n + 1)
	rq.grounded = 0
	if total > 0 {
		rq.grounded = known / total
	}
	return nil
}

// anchorFeatures are what relevance is computed from, each from 0 to 1.
type anchorFeatures struct {
	// Focus is the weighted share of the rule's known terms found in the
	// symbol: in its name (full credit), doc comment or signature (0.8)
	// or code (0.6); abbreviations count 0.85 and prefixes 0.7 of that.
	Focus float64
	// Name is the weighted share of the known terms in the symbol's
	// qualified name.
	Name float64
	// Grounded is the share of the rule's weight that the workspace's
	// code uses at all: the same for every candidate of a rule.
	Grounded float64
	// Coverage is Focus·Grounded: the weighted share of all the rule's
	// terms, known to the workspace or not, found in the symbol.
	Coverage float64
	// Corpus is log₁₀ of the number of chunks in the index: the more
	// code, the better the best chance match of an unrelated rule.
	Corpus float64
	// Agreement is 1/(1 + rank/5) for the symbol's rank in the semantic
	// search of the rule's sentence, 0 when it was not found there.
	Agreement float64
	// Named is 1 for a definition of an identifier the rule names, 0.6
	// for a symbol that calls one.
	Named float64
	// Literal is the share of the code fragments the rule quotes
	// (sync.Once, %w) found verbatim in the symbol, or that it defines.
	Literal float64
	// Test is 1 for code in a test file when the rule is not about
	// tests.
	Test float64
	// Score is the ranking score (anchorScore) and Margin its lead over
	// the best other candidate of the rule (negative when another one
	// ranks higher), within ±anchorMaxMargin.
	Score  float64
	Margin float64
	// Spell is how well the symbol's name spells the rule: 1 for a name
	// of consecutive words of the rule (checkHeader for "check the
	// header"), else the share of its parts that are rule terms when two
	// or more are (see anchorQuery.nameSpell).
	Spell float64
	// Type is 1 for a type (class, struct, interface, enum) that the
	// rule does not name: rules mostly describe what code does, which a
	// function shows better than the type it works on.
	Type float64
	// Quoted is the share of the identifiers the rule names
	// (ErrFrameTooLarge, addCleanup) that the symbol's code holds
	// verbatim: an example uses what the rule names, called or not.
	Quoted float64
	// Path is the weighted share of the rule's known terms that the
	// symbol's file path spells (flow.go for "flow-control window",
	// async_case.py for "async test case").
	Path float64
	// Platform is 1 for code in a file of one operating system
	// (os_plan9.go, popen_spawn_win32.py) when the rule names none:
	// the variant the common platforms run is the example a reader
	// expects.
	Platform float64
	// Head is 1 when the symbol's own name holds one of the rule's first
	// two terms, the word a rule begins with being what it is about
	// ("Seal a mock …": seal; "Check that a stream ID …": validStreamID).
	Head float64
	// Long grows with the lines of a symbol longer than
	// anchorExcerptLines: 0 up to them, 0.5 at twice as many, 1 from four
	// times. A long symbol holds more of any rule's words by its length
	// alone.
	Long float64
	// Opposite is 1 when the symbol's own name holds a verb whose
	// opposite the rule speaks of, and not the verb itself (Sign for a
	// rule about verifying; see anchorQuery.opposite).
	Opposite float64
	// Option is 1 for an option's constructor or a setter whose name
	// holds none of the rule's terms (WithTimeFunc for a rule about
	// leeway; see anchorQuery.option).
	Option float64
	// Code is the weighted share of the rule's known terms that the
	// symbol's own name or its statements hold, comments and
	// docstrings left out (see anchorCodeOnly): a doc comment that
	// lists every option does not do what the rule says. It measures
	// delegation (Callee, Delegates); alone it ranked the sets' examples
	// no better, and is no ranking feature.
	Code float64
	// Callee is set for a helper that one of the rule's best candidates
	// calls and whose code holds at least half of that caller's
	// evidence (the share, up to 1); Delegates for the caller (see
	// anchorDelegation): the rule describes what the helper's body
	// does, the caller only hands it the work.
	Callee, Delegates float64
	// File is the weighted share of the rule's known terms that the
	// statements of the candidates of the symbol's file hold together
	// (see anchorFileShares).
	File float64
	// Vector is the cosine similarity, at least 0, of the rule's key
	// words and the symbol's source under the code-search word model
	// (wordvec.LoadCode), trained so that a sentence about what code
	// does lies near the code's own words: evidence beyond the rule's
	// literal terms.
	Vector float64
	// Home is how close the symbol is to where the rule's corrections
	// were made (see anchorHome.of): 1 for the symbol they were about,
	// down to 0 for code elsewhere.
	Home float64
	// matched of the rule's keyTerms are found in the symbol;
	// codeTerms of its known terms in its statements or name.
	matched, keyTerms, codeTerms int
}

// anchorMaxMargin bounds the margin a candidate's relevance counts.
const anchorMaxMargin = 5

// anchorMargins sets the ranking score and margin of every candidate of
// a rule.
func anchorMargins(cands []anchorScored) {
	first, second := math.Inf(-1), math.Inf(-1)
	for i := range cands {
		f := &cands[i].features
		f.Score = anchorScore(*f)
		switch {
		case f.Score > first:
			first, second = f.Score, first
		case f.Score > second:
			second = f.Score
		}
	}
	for i := range cands {
		f := &cands[i].features
		best := first
		if f.Score == first {
			best = second // the lead over the runner-up
		}
		if math.IsInf(best, -1) {
			best = 0 // the only candidate
		}
		f.Margin = math.Max(-anchorMaxMargin, math.Min(anchorMaxMargin, f.Score-best))
	}
}

// Match strengths by where a term is found.
const (
	anchorMatchName   = 1.0
	anchorMatchDoc    = 0.8
	anchorMatchBody   = 0.6
	anchorMatchAlias  = 0.85
	anchorMatchPrefix = 0.7
)

// features measures how a candidate symbol, whose source is text,
// matches the rule; body is anchorStems(text).
func (rq *anchorQuery) features(c *anchorCand, text string, body map[string]bool) anchorFeatures {
	sym := c.sym
	name := anchorStems(sym.QualifiedName)
	doc := anchorStems(sym.Doc + "\n" + sym.Signature)
	lower := strings.ToLower(text)
	f := anchorFeatures{Grounded: rq.grounded, Corpus: rq.corpus}
	var total, got, inName float64
	allSoft := rq.allSoft()
	for _, t := range rq.terms {
		key := !t.soft || allSoft
		if key {
			f.keyTerms++
		}
		if !t.known {
			continue
		}
		total += t.weight
		m := 0.0
		for k, form := range t.forms {
			s := 0.0
			switch {
			case name[form]:
				s = anchorMatchName
			case doc[form]:
				s = anchorMatchDoc
			case body[form]:
				s = anchorMatchBody
			}
			if k > 0 {
				s *= anchorMatchAlias
			}
			if k == 0 && name[form] {
				inName += t.weight
			}
			m = math.Max(m, s)
		}
		for _, l := range t.literals {
			if strings.Contains(lower, l) {
				m = math.Max(m, anchorMatchBody)
			}
		}
		if m == 0 && len(t.stem) >= 4 {
			switch {
			case anchorHasPrefixed(name, t.stem):
				m = anchorMatchName * anchorMatchPrefix
			case anchorHasPrefixed(doc, t.stem):
				m = anchorMatchDoc * anchorMatchPrefix
			case anchorHasPrefixed(body, t.stem):
				m = anchorMatchBody * anchorMatchPrefix
			}
		}
		got += t.weight * m
		if m > 0 && key {
			f.matched++
		}
	}
	if total > 0 {
		f.Focus, f.Name = got/total, inName/total
	}
	f.Coverage = f.Focus * f.Grounded
	if c.rank >= 0 {
		f.Agreement = 1 / (1 + float64(c.rank)/5)
	}
	switch {
	case c.named:
		f.Named = 1
	case c.uses:
		f.Named = 0.6
	}
	if len(rq.literals) > 0 {
		found := 0
		for _, l := range rq.literals {
			if strings.Contains(lower, l) || slices.Contains(c.defines, l) {
				found++
			}
		}
		f.Literal = float64(found) / float64(len(rq.literals))
	}
	if len(rq.quoted) > 0 {
		found := 0
		for _, q := range rq.quoted {
			if strings.Contains(lower, q) {
				found++
			}
		}
		f.Quoted = float64(found) / float64(len(rq.quoted))
	}
	if !rq.aboutTests && (retrieval.IsTestPath(sym.Path) || retrieval.IsFixturePath(sym.Path)) {
		f.Test = 1
	}
	f.Head = rq.headIn(sym.Name)
	f.Opposite = rq.opposite(sym.Name)
	if f.Opposite > 0 {
		// The name's verb is the other half of the rule's job (Sign for
		// "… signature … fails verification"): the rule's first word
		// it holds is that verb, not what the rule is about.
		f.Head = 0
	}
	f.Option = rq.option(sym.Name)
	f.Path = rq.pathShare(sym.Path)
	if p := platformOf(sym.Path); p != "" && !rq.names(p) {
		f.Platform = 1
	}
	switch sym.Kind {
	case analysis.KindClass, analysis.KindStruct, analysis.KindInterface, analysis.KindTrait, analysis.KindEnum, analysis.KindType:
		if !c.named {
			f.Type = 1
		}
	}
	return f
}

// names reports whether one of the rule's words is word (lower case).
func (rq *anchorQuery) names(word string) bool {
	for _, t := range rq.terms {
		if strings.EqualFold(t.word, word) {
			return true
		}
	}
	return false
}

// headIn returns 1 when a symbol's own name holds one of the rule's
// first two terms (any of its code forms, or a word of four letters or
// more that one begins with the other), else 0.
func (rq *anchorQuery) headIn(name string) float64 {
	head := rq.terms[:min(2, len(rq.terms))]
	found := false
	analysis.CodeWords(name, func(w string, _, _ int, whole bool) error {
		if whole || found || len(w) < 2 {
			return nil
		}
		p := analysis.Stem(w)
		for _, t := range head {
			if anchorFormMatches(t, p) {
				found = true
			}
		}
		return nil
	})
	if found {
		return 1
	}
	return 0
}

// pathShare returns the weighted share of the rule's known terms that
// the words of a file's path (its directories and base name, without
// the extension) hold: any of their code forms, or a word of four
// letters or more that one begins with the other.
func (rq *anchorQuery) pathShare(file string) float64 {
	file = strings.TrimSuffix(file, path.Ext(file))
	var parts []string
	analysis.CodeWords(file, func(w string, _, _ int, whole bool) error {
		if !whole && len(w) >= 2 {
			parts = append(parts, analysis.Stem(w))
		}
		return nil
	})
	var total, got float64
	for _, t := range rq.terms {
		if !t.known {
			continue
		}
		total += t.weight
		for _, p := range parts {
			if anchorFormMatches(t, p) {
				got += t.weight
				break
			}
		}
	}
	if total == 0 {
		return 0
	}
	return got / total
}

// vectorSimilarity returns the Vector feature of a symbol whose source
// is text.
func (rq *anchorQuery) vectorSimilarity(text string) float64 {
	if rq.vec == nil || rq.code == nil {
		return 0
	}
	if len(text) > anchorVectorBytes {
		text = text[:anchorVectorBytes]
	}
	return math.Max(0, float64(wordvec.Cosine(rq.vec, rq.code.Embed(text))))
}

// anchorVectorBytes bounds the source of a symbol that vectorSimilarity
// embeds: a function's first 16 KiB (some 400 lines) say what it does.
const anchorVectorBytes = 16 << 10

// anchorNonZero reports whether v has a component other than 0.
func anchorNonZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// anchorLong is the Long feature of a symbol of the given lines.
func anchorLong(lines int) float64 {
	if lines <= anchorExcerptLines {
		return 0
	}
	return math.Min(1, math.Log2(float64(lines)/anchorExcerptLines)/2)
}

// anchorStems returns the stems of the words of text, identifier parts and
// whole identifiers, keywords included.
func anchorStems(text string) map[string]bool {
	out := map[string]bool{}
	analysis.CodeWords(text, func(w string, _, _ int, _ bool) error {
		if len(w) >= 2 {
			out[analysis.Stem(w)] = true
		}
		return nil
	})
	return out
}

// anchorHasPrefixed reports whether set holds a word that stem starts, or that
// starts stem, of at least four letters either way (error, errorf;
// validat, valid).
func anchorHasPrefixed(set map[string]bool, stem string) bool {
	for w := range set {
		if len(w) >= 4 && (strings.HasPrefix(w, stem) || strings.HasPrefix(stem, w)) {
			return true
		}
	}
	return false
}

// anchorRankFeatures is how many features rank a rule's candidates (see
// anchorFeatures.ranking).
const anchorRankFeatures = 19

// anchorRankWeights weigh a candidate's features (in the order of
// anchorFeatures.ranking) into its ranking score. They are fitted by
// TestAnchorCalibrate on the development rule sets
// (testdata/anchors/sampleapp.jsonl, gostdlib.jsonl and blind-rules.jsonl)
// with a listwise (softmax) loss: the probability that the score gives a
// rule's known examples among all of the rule's candidates is maximised.
func anchorRankWeights() [anchorRankFeatures]float64 {
	return [anchorRankFeatures]float64{
		4.98,  // focus
		0.85,  // name
		3.51,  // agreement
		2.23,  // named
		2.54,  // literal
		0.00,  // test
		0.44,  // spell
		-2.68, // type
		1.19,  // head
		-0.69, // long
		1.82,  // quoted
		0.99,  // path
		-0.91, // platform
		-1.43, // opposite
		-0.32, // option
		0.30,  // callee
		-0.33, // delegates
		2.01,  // file
		3.12,  // vector
	}
}

// anchorCalibration maps a candidate's ranking score s, its margin m
// over the rule's other candidates, its coverage v, its rule's grounding
// g, the size of the index k (log₁₀ of its chunks) and the number n of
// the rule's key terms to relevance = σ(c₀ + c₁·s + c₂·m + c₃·v + c₄·g +
// c₅·k + c₆·ln(1+n)), within [0, 1]. A rule of many words is matched by
// a share of them that would be weak evidence for a rule of three: n
// lets the same coverage count for more in a long rule.
//
// TestAnchorCalibrate fits c₁…c₆ by logistic regression on the best
// candidate of each training rule, labelled by whether it is one of the
// rule's known examples (a rule with none has a wrong best candidate):
// relevance rises with the odds that a candidate is the right example.
// It then sets the intercept c₀ where the anchoring decision — quality
// 0.6·relevance + 0.2·size + 0.2·recency ≥ 0.7, at neutral recency — is
// right for the most training rules (anchor a right best candidate, not
// a wrong one or a rule without example), in the middle of the best
// interval. So the default threshold 0.7 is the fitted boundary between
// right and wrong examples: a readable (5–40 lines) candidate of neutral
// recency is anchored once its relevance reaches 2/3.
func anchorCalibration() [7]float64 {
	return [7]float64{
		-6.71, // intercept
		0.36,  // ranking score
		0.49,  // margin
		1.37,  // coverage
		2.83,  // grounded
		-0.27, // corpus
		0.99,  // key terms
	}
}

// Where the development rule sets say nothing: they have no corrections'
// places. The place of the corrections adds to the ranking score and, as
// evidence that the code there is what the rule is about, to relevance.
const (
	anchorHomeWeight = 5.0
	anchorHomeLogit  = 2.5
)

// anchorScore is a candidate's ranking score: Σ wᵢ·featureᵢ, with the
// home term.
func anchorScore(f anchorFeatures) float64 {
	w := anchorRankWeights()
	z := 0.0
	for i, v := range f.ranking() {
		z += w[i] * v
	}
	return z + anchorHomeWeight*f.Home
}

// anchorRelevance is the calibrated relevance of a candidate (see
// anchorCalibration), always within [0, 1]. A candidate in the home of
// the rule's corrections needs some of the rule's terms to count it.
func anchorRelevance(f anchorFeatures) float64 {
	c := anchorCalibration()
	home := 0.0
	if f.matched > 0 {
		home = anchorHomeLogit * f.Home
	}
	return anchorLogistic(c[0] + c[1]*f.Score + c[2]*f.Margin + c[3]*f.Coverage + c[4]*f.Grounded + c[5]*f.Corpus + c[6]*anchorKeyTermsLog(f.keyTerms) + home)
}

// ranking returns the features that rank the candidates of one rule:
// all but Grounded, which is the same for all of them, and Home, which
// the development sets do not measure.
func (f anchorFeatures) ranking() [anchorRankFeatures]float64 {
	return [anchorRankFeatures]float64{f.Focus, f.Name, f.Agreement, f.Named, f.Literal, f.Test, f.Spell, f.Type, f.Head, f.Long, f.Quoted, f.Path, f.Platform, f.Opposite, f.Option, f.Callee, f.Delegates, f.File, f.Vector}
}

// anchorKeyTermsLog is ln(1+n) for a rule of n key terms: the
// calibration's measure of the rule's length.
func anchorKeyTermsLog(n int) float64 { return math.Log1p(float64(n)) }

func anchorLogistic(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return 0
	case z > 40:
		return 1
	case z < -40:
		return 0
	}
	return 1 / (1 + math.Exp(-z))
}

// anchorStopWord reports whether a lower-case word of a rule says nothing
// about the code it is about: English function words and the words rules
// are phrased with (always, never, prefer, avoid, use).
func anchorStopWord(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "nor", "of", "to", "in", "on", "at", "by", "for", "from", "with",
		"as", "is", "are", "be", "been", "being", "was", "were", "it", "its", "this", "that", "these", "those",
		"there", "their", "them", "they", "then", "than", "so", "such", "not", "no", "do", "does", "did",
		"done", "doing", "don", "doesn", "isn", "aren", "won", "we", "you", "your", "our", "us", "me", "my",
		"can", "could", "will", "would", "shall", "should", "may", "might", "must", "have", "has", "had",
		"into", "onto", "over", "under", "out", "up", "if", "when", "where", "which", "who", "whom",
		"what", "why", "how", "all", "any", "each", "every", "both", "either", "neither", "some", "own",
		"same", "only", "also", "just", "very", "too", "more", "most", "much", "many", "few", "via",
		"per", "etc", "eg", "ie", "one", "ones", "let", "lets", "always", "never", "prefer", "preferably",
		"avoid", "use", "used", "uses", "using", "instead", "rather", "make", "makes", "sure", "ensure",
		"ensures", "need", "needs", "please", "good", "bad", "better", "best", "practice", "rule",
		"rules", "code", "way", "ways", "thing", "things", "whenever", "wherever", "because", "properly",
		"correctly", "explicitly", "directly", "clearly", "consistently", "unless", "whether", "else":
		return true
	}
	return false
}

// anchorSoftWord reports whether a lower-case word (or its stem) is one of the
// generic words rules describe code with: it says little about which
// code.
func anchorSoftWord(w string) bool {
	switch w {
	case "call", "calls", "called", "calling", "take", "takes", "first", "last", "pass", "passes",
		"argument", "arguments", "parameter", "parameters", "check", "checks", "handle", "handles",
		"function", "functions", "method", "methods", "class", "classes", "type", "types", "value",
		"values", "variable", "variables", "new", "get", "set", "put", "add", "keep", "write", "read",
		"return", "returns", "name", "named", "before", "after", "inside", "outside", "object",
		"objects", "data", "run", "runs", "work", "works", "again", "once", "right", "wrong", "others":
		return true
	}
	return false
}

// anchorAliasList pairs words of rules with the abbreviations and neighbours
// code writes them as ("database" is db or sql in code). Like the search's
// alias table (retrieval/aliases.txt) but for the words of rules; each
// pair counts both ways.
const anchorAliasList = `
error err errorf errs exception fail
exception error err throw
database db sql jdbc
context ctx
connection conn
configuration config cfg conf
argument arg args param params parameter
parameter param params arg args
function func fn
message msg
request req
response resp res
initialize init
initialization init
create new init
constructor init new
temporary temp tmp
directory dir
buffer buf
length len
number num
value val
pointer ptr
reference ref
string str
mutex mu lock
lock mutex mu
wrap errorf
close closer
check verify validate
iterate iter range
identifier id
repository repo
environment env
command cmd
authentication auth
password pwd passwd
channel chan
synchronize sync
throw raise
log logger logging
url uri
format fmt
print printf
`

// anchorAliases returns the stems of anchorAliasList: each word's stem mapped
// to the stems that count for it.
func anchorAliases() map[string][]string {
	out := map[string][]string{}
	add := func(a, b string) {
		if a == b {
			return
		}
		for _, x := range out[a] {
			if x == b {
				return
			}
		}
		out[a] = append(out[a], b)
	}
	for _, line := range strings.Split(anchorAliasList, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		word := analysis.Stem(f[0])
		for _, alias := range f[1:] {
			s := analysis.Stem(alias)
			add(word, s)
			add(s, word)
		}
	}
	return out
}
