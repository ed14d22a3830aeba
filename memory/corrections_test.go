package memory

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestMemoryRecordCorrection(t *testing.T) {
	s := memTemp(t, WithProject("xcalibr"), WithSession("s1"))
	rng := &Range{Start: Position{Line: 3, Character: 1}, End: Position{Line: 3, Character: 9}}
	tests := []struct {
		name    string
		in      Correction
		want    Correction
		wantErr error
	}{
		{"plain", Correction{Text: " Never use panic \n"},
			Correction{Text: "Never use panic", Project: "xcalibr", Session: "s1"}, nil},
		{"language from file", Correction{Text: "use tabs", File: "ui/Tabs.tsx", Range: rng},
			Correction{Text: "use tabs", File: "ui/Tabs.tsx", Range: rng, Language: "typescript", Project: "xcalibr", Session: "s1"}, nil},
		{"language given", Correction{Text: "x", Language: "Golang", Project: "other", Session: "s2"},
			Correction{Text: "x", Language: "go", Project: "other", Session: "s2"}, nil},
		{"invalid UTF-8 replaced", Correction{Text: "a\xffb"},
			Correction{Text: "a\uFFFDb", Project: "xcalibr", Session: "s1"}, nil},
		{"exactly the limit", Correction{Text: strings.Repeat("x", MaxCorrectionBytes)},
			Correction{Text: strings.Repeat("x", MaxCorrectionBytes), Project: "xcalibr", Session: "s1"}, nil},
		{"empty", Correction{Text: ""}, Correction{}, ErrEmptyCorrection},
		{"only space", Correction{Text: " \t\n "}, Correction{}, ErrEmptyCorrection},
		{"huge", Correction{Text: strings.Repeat("x", MaxCorrectionBytes+1)}, Correction{}, ErrCorrectionTooLong},
		{"huge multibyte", Correction{Text: strings.Repeat("日本", MaxCorrectionBytes)}, Correction{}, ErrCorrectionTooLong},
		{"bad range", Correction{Text: "x", Range: &Range{Start: Position{Line: 5}, End: Position{Line: 2}}}, Correction{}, nil},
		{"negative range", Correction{Text: "x", Range: &Range{Start: Position{Line: -1}}}, Correction{}, nil},
		{"bad project", Correction{Text: "x", Project: "a\x01b"}, Correction{}, ErrInvalidScope},
		{"all sessions: unlabelled", Correction{Text: "x", Session: AllSessions},
			Correction{Text: "x", Project: "xcalibr"}, nil},
		{"session trimmed", Correction{Text: "x", Session: " review "},
			Correction{Text: "x", Project: "xcalibr", Session: "review"}, nil},
		{"session too long", Correction{Text: "x", Session: strings.Repeat("s", MaxSessionBytes+1)}, Correction{}, ErrInvalidSession},
		{"session not one line", Correction{Text: "x", Session: "a\nb"}, Correction{}, ErrInvalidSession},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.RecordCorrection(t.Context(), tt.in)
			if tt.want.Text == "" { // an error is expected
				if err == nil {
					t.Fatalf("RecordCorrection = %+v, want an error", got)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
				if errors.Is(err, ErrCorrectionTooLong) && !strings.Contains(err.Error(), fmt.Sprint(MaxCorrectionBytes)) {
					t.Errorf("error %q does not say the limit", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ID == 0 || got.CreatedAt.IsZero() || got.Text != tt.want.Text || got.File != tt.want.File ||
				got.Language != tt.want.Language || got.Project != tt.want.Project || got.Session != tt.want.Session ||
				(got.Range == nil) != (tt.want.Range == nil) || got.Range != nil && *got.Range != *tt.want.Range {
				t.Errorf("RecordCorrection = %+v, want %+v", got, tt.want)
			}
		})
	}
	// Only the valid ones were stored, as returned.
	var cs []Correction
	for _, sess := range []string{"s1"} {
		got, err := s.OpenCorrections(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		_ = sess
		cs = got
	}
	if len(cs) != 4 { // the s2 one is another session's
		t.Fatalf("%d open corrections of session s1, want 4", len(cs))
	}
	for _, c := range cs {
		if !utf8.ValidString(c.Text) {
			t.Errorf("stored invalid UTF-8: %q", c.Text)
		}
	}
	if c := cs[1]; c.Range == nil || *c.Range != *rng || c.File != "ui/Tabs.tsx" {
		t.Errorf("stored %+v, want the range and file", c)
	}
}

func TestMemoryConcurrentRecordCorrection(t *testing.T) {
	s := memTemp(t)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	ids := make(chan int64, workers*each)
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				c, err := s.RecordCorrection(t.Context(), Correction{Text: fmt.Sprintf("rule %d of worker %d", i, w), File: "a.go"})
				if err != nil {
					errs <- err
					continue
				}
				ids <- c.ID
			}
		})
	}
	wg.Wait()
	close(ids)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %d returned twice", id)
		}
		seen[id] = true
	}
	cs, err := s.OpenCorrections(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != workers*each || len(cs) != workers*each {
		t.Errorf("%d ids, %d stored; want %d", len(seen), len(cs), workers*each)
	}
}
