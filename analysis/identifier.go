package analysis

import (
	"unicode"
	"unicode/utf8"
)

// SplitIdentifier splits an identifier into its words at underscores and
// other separators, at lower-to-upper case changes, before the last capital
// of an acronym and between letters and digits:
// FindByID → Find By ID, HTTPServer → HTTP Server, get_user2 → get user 2.
func SplitIdentifier(s string) []string {
	var words []string
	start := -1
	var prev rune
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			prev = r
			continue
		}
		if start < 0 {
			start = i
			prev = r
			continue
		}
		split := false
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			split = true
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			split = true
		case unicode.IsLower(r) && unicode.IsUpper(prev):
			// The last capital of a run starts a new word: HTTPServer.
			if j := i - utf8.RuneLen(prev); j > start {
				p2, _ := utf8.DecodeLastRuneInString(s[start:j])
				if unicode.IsUpper(p2) {
					words = append(words, s[start:j])
					start = j
				}
			}
		}
		if split {
			words = append(words, s[start:i])
			start = i
		}
		prev = r
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// foldName lower-cases ASCII letters only, as SQLite's lower() does, so that
// names folded in Go and in SQL agree.
func foldName(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
