package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes caps the length of one indexed word: longer runs (base64,
// minified code) are cut.
const maxTokenBytes = 64

// CodeWords calls fn for each word of text, lower-cased, with its byte
// span: the parts of each identifier (see SplitIdentifier), followed,
// for identifiers of several parts, by the whole identifier with its parts
// joined (whole = true). It stops at the first error fn returns.
func CodeWords(text string, fn func(word string, start, end int, whole bool) error) error {
	var parts [16]int // part boundaries of the current identifier
	i := 0
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !isWordRune(r) {
			i += size
			continue
		}
		start := i
		for i < len(text) {
			r, size = rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			if !isWordRune(r) {
				break
			}
			i += size
		}
		ident := text[start:i]
		bounds := splitBounds(ident, parts[:0])
		n := 0
		for k := 0; k+1 < len(bounds); k += 2 {
			w := ident[bounds[k]:bounds[k+1]]
			if len(w) > maxTokenBytes {
				w = w[:maxTokenBytes]
			}
			if err := fn(lowerWord(w), start+bounds[k], start+bounds[k+1], false); err != nil {
				return err
			}
			n++
		}
		if n > 1 && len(ident) <= maxTokenBytes {
			var b strings.Builder
			for k := 0; k+1 < len(bounds); k += 2 {
				b.WriteString(ident[bounds[k]:bounds[k+1]])
			}
			if err := fn(lowerWord(b.String()), start, i, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// isWordRune reports whether r belongs to an identifier.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// splitBounds appends to dst the start and end of each part of ident, in
// pairs, splitting as SplitIdentifier does.
func splitBounds(ident string, dst []int) []int {
	start := -1
	var prev rune
	for i, r := range ident {
		if r == '_' {
			if start >= 0 {
				dst = append(dst, start, i)
				start = -1
			}
			prev = r
			continue
		}
		if start < 0 {
			start, prev = i, r
			continue
		}
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)),
			unicode.IsDigit(r) != unicode.IsDigit(prev):
			dst = append(dst, start, i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev):
			if j := i - utf8.RuneLen(prev); j > start {
				p2, _ := utf8.DecodeLastRuneInString(ident[start:j])
				if unicode.IsUpper(p2) {
					dst = append(dst, start, j)
					start = j
				}
			}
		}
		prev = r
	}
	if start >= 0 {
		dst = append(dst, start, len(ident))
	}
	return dst
}

// lowerWord lower-cases a word, without allocating when it is already
// lower-case ASCII.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
		if c >= 'A' && c <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// AppendTerms appends to dst the search terms of text, separated by
// spaces: its words as CodeWords splits them, whole identifiers included,
// stemmed (see Stem), without stop words, single letters and single
// digits. Chunks are indexed, and queries searched, by their terms, so
// that "parsing URLs" finds parseURL.
func AppendTerms(dst []byte, text string) []byte {
	CodeWords(text, func(w string, _, _ int, _ bool) error {
		if len(w) < 2 || isStopWord(w) {
			return nil
		}
		if len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, Stem(w)...)
		return nil
	})
	return dst
}

// Stem strips the common English inflections from a lower-case word, so
// that "parsing", "parsed", "parser", "parses" and "parse" share the stem
// "pars". It is deliberately light (a few suffix rules, no dictionary):
// it only has to map a word in a query and in code the same way.
func Stem(w string) string {
	// Plurals and third persons first, so that "users" stems as "user".
	n := len(w)
	switch {
	case n > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		w = w[:n-3] + "y"
	case n > 3 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		w = w[:n-1]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	// Then verb and noun endings, when what remains still has a vowel
	// (so that "string" and "need" keep theirs).
	n = len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing") && hasVowel(w[:n-3]):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed") && hasVowel(w[:n-2]) && !isEdWord(w):
		w = w[:n-2]
	case n > 4 && strings.HasSuffix(w, "er") && hasVowel(w[:n-2]):
		w = w[:n-2]
	case n > 5 && strings.HasSuffix(w, "ion") && hasVowel(w[:n-3]):
		w = w[:n-3]
		// "serialization" as "serialize": -izat(ion) is -ize.
		if m := len(w); m > 6 && (strings.HasSuffix(w, "izat") || strings.HasSuffix(w, "isat")) {
			w = w[:m-2]
		}
	}
	if n = len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	// A doubled final consonant (running → runn → run).
	if n = len(w); n > 3 && w[n-1] < utf8.RuneSelf && w[n-1] == w[n-2] && w[n-1] != 's' && w[n-1] != 'l' && !isVowel(w[n-1]) {
		w = w[:n-1]
	}
	return w
}

// isEdWord reports whether w is a word of code whose "ed" is not a past
// tense: "embed" must stem as "embedded" and "embedding" do.
func isEdWord(w string) bool {
	switch w {
	case "embed", "exceed", "speed", "proceed", "succeed", "shred", "bleed", "breed":
		return true
	}
	return false
}

func hasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		if isVowel(s[i]) || s[i] == 'y' {
			return true
		}
	}
	return false
}

func isVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

// isStopWord reports whether a lower-case word carries no meaning for
// search: English function words and the keywords of the languages
// indexed.
func isStopWord(w string) bool {
	switch w {
	case "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "from", "with", "as", "is",
		"are", "be", "was", "it", "its", "this", "that", "an", "if", "else", "then", "not", "no",
		"do", "does", "we", "you", "can", "will", "should", "would", "there", "these", "those",
		"which", "what", "when", "how", "where", "who", "why", "into", "so", "but", "all", "any",
		"has", "have", "had", "been", "such", "than", "may", "must", "only", "also", "other",
		"func", "return", "var", "const", "let", "def", "self", "nil", "null", "none", "true",
		"false", "fn", "pub", "impl", "use", "mut", "public", "private", "protected", "static",
		"final", "void", "new", "package", "import", "class", "struct", "interface", "export",
		"default", "case", "switch", "break", "continue", "elif", "pass", "while", "defer",
		"err", "ok", "super", "extends", "implements", "throws", "try", "catch",
		"finally", "except", "raise", "async", "await", "lambda", "yield":
		return true
	}
	return false
}
