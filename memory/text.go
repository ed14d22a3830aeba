package memory

import (
	"slices"
	"strings"
	"unicode"
)

// This file compares corrections and rules by their words. The texts are
// one or two sentences of English, often with identifiers in them, so the
// comparison is lexical: each text becomes a set of normalised content
// words (identifiers split into their parts, stop words dropped, plurals
// and -ing/-ed endings stripped, a few synonyms of correction vocabulary
// merged: "short", "terse", "brief" → "concise") and a polarity (whether
// it asks for or forbids something). Two texts of opposite polarity are
// never alike. The stemming and the synonyms are hand-written: small,
// deterministic and tuned to corrections, where a general-purpose stemmer
// would over-merge ("general" and "generate") and still not know that
// "terse" means "concise".

// proseFeatures are what the comparison uses of one text.
type proseFeatures struct {
	// tokens are the normalised content words, sorted, without repeats.
	tokens []string
	// negative is true for a text that forbids ("never use panic",
	// "avoid panic()", "don't be verbose" is positive: it asks for
	// concision).
	negative bool
	// directive is true for a text with a directive or a negation
	// ("use", "always", "never", "avoid", …): it reads as a rule.
	directive bool
	// words counts the text's words.
	words int
}

// proseClass is the role of a word for proseFeatures.
type proseClass uint8

const (
	proseContent  proseClass = iota
	proseStop                // carries no meaning here
	proseNegator             // never, not, avoid, …
	prosePositive            // use, always, prefer, …
	proseFlip                // forget, fail, skip: flips a negation before it
)

var (
	corrNegators = wordSet("never", "not", "no", "none", "nor", "avoid", "avoids", "avoiding", "avoided", "stop", "stopped",
		"without", "cannot", "forbid", "forbids", "forbidden", "prohibit", "prohibited", "disallow", "disallowed",
		"ban", "banned", "refrain", "dont", "doesnt", "didnt", "cant", "wont", "shouldnt", "mustnt", "isnt",
		"arent", "wasnt", "werent", "neednt")
	corrPositives = wordSet("use", "uses", "using", "used", "always", "prefer", "prefers", "preferred", "keep", "make",
		"add", "ensure", "must", "should", "need", "needs", "want", "please", "do", "does", "did", "be", "try",
		"remember", "follow", "stick", "write", "put", "let", "favor", "favour", "require", "required")
	corrFlips     = wordSet("forget", "fail", "omit", "neglect", "skip")
	corrStopWords = wordSet("i", "me", "my", "you", "your", "we", "us", "our", "it", "its", "they", "them", "their", "he",
		"she", "this", "that", "these", "those", "here", "there", "a", "an", "the", "and", "or", "but", "if", "then",
		"else", "so", "to", "of", "in", "on", "at", "for", "with", "by", "from", "as", "into", "onto", "about",
		"over", "is", "are", "was", "were", "been", "being", "am", "have", "has", "had", "would", "could", "can",
		"will", "shall", "may", "might", "all", "any", "every", "each", "some", "more", "most", "very", "too",
		"even", "only", "just", "also", "really", "actually", "again", "instead", "than", "when", "where", "what",
		"which", "who", "how", "why", "code", "thing", "things", "stuff", "way", "like", "ok", "okay", "yes",
		"hey", "thanks", "thank", "ever", "other", "such", "same", "own", "via", "etc", "eg", "ie", "rather",
		"whenever", "wherever", "unless", "both", "either", "neither", "much", "many", "lot", "lots")
	// corrSynonyms maps words of correction vocabulary to one
	// representative.
	corrSynonyms = map[string]string{
		"short": "concise", "shorter": "concise", "shortest": "concise", "terse": "concise", "brief": "concise",
		"briefer": "concise", "succinct": "concise", "compact": "concise", "concise": "concise", "concisely": "concise",
		"briefly": "concise", "tersely": "concise", "shorten": "concise", "conciseness": "concise", "brevity": "concise",
		"err": "error", "errs": "error", "errors": "error", "error": "error",
		"panics": "panic", "panicked": "panic", "panicking": "panic", "panic": "panic",
		"log": "log", "logs": "log", "logging": "log", "logged": "log", "logger": "log", "loggers": "log",
		"test": "test", "tests": "test", "testing": "test", "tested": "test", "unittest": "test", "unittests": "test",
		"function": "function", "functions": "function", "func": "function", "funcs": "function", "fn": "function",
		"variable": "variable", "variables": "variable", "var": "variable", "vars": "variable",
		"repository": "repository", "repositories": "repository", "repo": "repository", "repos": "repository",
		"config": "configuration", "configs": "configuration", "configuration": "configuration",
		"directory": "directory", "directories": "directory", "dir": "directory", "dirs": "directory",
		"folder": "directory", "folders": "directory",
		"argument": "argument", "arguments": "argument", "arg": "argument", "args": "argument",
		"param": "argument", "params": "argument", "parameter": "argument", "parameters": "argument",
		"doc": "documentation", "docs": "documentation", "documentation": "documentation",
		"docstring": "documentation", "docstrings": "documentation",
		"answer": "response", "answers": "response", "reply": "response", "replies": "response",
		"response": "response", "responses": "response",
		"golang": "go",
	}
	// corrAntonyms mean the opposite of their representative: "avoid
	// verbose output" asks for concise output.
	corrAntonyms = map[string]string{
		"verbose": "concise", "verbosity": "concise", "wordy": "concise", "lengthy": "concise", "rambling": "concise",
	}
)

// wordSet returns a set of words.
func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// splitProseWords returns the words of text as written: runs of letters,
// digits, underscores and inner apostrophes.
func splitProseWords(text string) []string { return splitWords(text, false) }

// splitWords is splitProseWords, keeping hyphenated words ("not-found")
// whole when hyphens is set.
func splitWords(text string, hyphens bool) []string {
	var words []string
	start := -1
	rs := []rune(text)
	for i, r := range rs {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' ||
			(r == '\'' || r == '’' || hyphens && r == '-') && start >= 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1])
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			words = append(words, string(rs[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, string(rs[start:]))
	}
	return words
}

// splitIdentParts splits a word written as an identifier into its parts:
// at underscores, and at changes from lower to upper case
// ("PortalTabs" → "Portal", "Tabs"; "HTTPServer" → "HTTP", "Server").
func splitIdentParts(w string) []string {
	var parts []string
	rs := []rune(w)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '_':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]):
			flush(i)
		case i > start && unicode.IsUpper(r) && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		}
	}
	flush(len(rs))
	return parts
}

// proseItem is one classified word of a text.
type proseItem struct {
	class proseClass
	token string // the normalised word, for proseContent
	flip  bool   // an antonym of token
}

// classifyProse splits text into classified words.
func classifyProse(text string) []proseItem {
	var items []proseItem
	for _, raw := range splitWords(text, true) {
		raw = strings.ReplaceAll(raw, "’", "'")
		lw := strings.ToLower(raw)
		if strings.HasSuffix(lw, "n't") {
			items = append(items, proseItem{class: proseNegator})
			continue
		}
		for _, suf := range []string{"'s", "'re", "'ll", "'ve", "'d", "'m"} {
			if strings.HasSuffix(lw, suf) {
				raw = raw[:len(raw)-len(suf)]
				break
			}
		}
		raw = strings.ReplaceAll(raw, "'", "")
		// In a hyphenated word ("not-found", "non-nil", "no-op") a
		// negation is part of a name, not of the sentence.
		compound := strings.Contains(raw, "-")
		var parts []string
		for _, piece := range strings.Split(raw, "-") {
			parts = append(parts, splitIdentParts(piece)...)
		}
		for _, part := range parts {
			it := classifyProseWord(strings.ToLower(part))
			if compound && it.class != proseContent && it.class != proseStop {
				it = proseItem{token: strings.ToLower(part)}
			}
			items = append(items, it)
		}
	}
	return items
}

// classifyProseWord classifies one lower-case word.
func classifyProseWord(w string) proseItem {
	switch {
	case corrNegators[w]:
		return proseItem{class: proseNegator}
	case corrFlips[w]:
		return proseItem{class: proseFlip}
	case corrPositives[w]:
		return proseItem{class: prosePositive}
	case corrStopWords[w] || len([]rune(w)) < 2:
		return proseItem{class: proseStop}
	}
	if s, ok := corrSynonyms[w]; ok {
		return proseItem{token: s}
	}
	if s, ok := corrAntonyms[w]; ok {
		return proseItem{token: s, flip: true}
	}
	st := stemProseWord(w)
	if s, ok := corrSynonyms[st]; ok {
		return proseItem{token: s}
	}
	return proseItem{token: st}
}

// analyzeProse returns the features of text.
func analyzeProse(text string) proseFeatures {
	items := classifyProse(text)
	var f proseFeatures
	f.words = len(splitProseWords(text))
	leadPolar, leadNeg, anyNeg, flips := false, 0, false, 0
	seenContent := false
	for _, it := range items {
		switch it.class {
		case proseContent:
			seenContent = true
			f.tokens = append(f.tokens, it.token)
			if it.flip {
				flips++
			}
		case proseNegator, proseFlip, prosePositive:
			f.directive = true
			if it.class == proseNegator {
				anyNeg = true
			}
			if !seenContent {
				leadPolar = true
				if it.class != prosePositive {
					leadNeg++
				}
			}
		}
	}
	// The words before the first content word say what the text asks
	// ("never use", "don't forget to", "please always"); without any,
	// a negation anywhere ("panic is not allowed") decides.
	if leadPolar {
		f.negative = leadNeg%2 == 1
	} else {
		f.negative = anyNeg
	}
	if flips%2 == 1 {
		f.negative = !f.negative
	}
	slices.Sort(f.tokens)
	f.tokens = slices.Compact(f.tokens)
	return f
}

// stemProseWord strips a plural and then an -ing or -ed ending and a final e,
// so that the forms of a word meet: "pages" and "page" → "pag",
// "naming" and "names" → "nam", "logging" → "log".
func stemProseWord(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undoubleStem(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = undoubleStem(w[:len(w)-2])
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// undoubleStem drops the last letter of a stem that ends in a doubled
// consonant other than l, s or z ("logg" → "log", "install" stays).
func undoubleStem(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// proseOverlap is the mean of the Jaccard index and the overlap
// coefficient of two sorted sets of tokens: 1 for equal sets, 0 for
// disjoint ones. The overlap coefficient lets a short correction ("avoid
// panic()") meet the long one it abbreviates ("never use panic in
// production Go code"); the Jaccard index keeps sets that merely share
// one word of many apart.
func proseOverlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	jaccard := float64(inter) / float64(union)
	overlap := float64(inter) / float64(min(len(a), len(b)))
	return (jaccard + overlap) / 2
}

// proseSimilarity compares two texts: their token overlap, or 0 when one
// forbids what the other asks.
func proseSimilarity(a, b proseFeatures) float64 {
	if a.negative != b.negative {
		return 0
	}
	return proseOverlap(a.tokens, b.tokens)
}
