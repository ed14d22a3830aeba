package memory

import (
	"context"
	"errors"
	"testing"
)

// TestRecallFirst checks that InjectDeps.Recall's rules rank ahead of the
// others, after those anchored in the file, and that a failing or empty
// recall leaves the ranking as it is.
func TestRecallFirst(t *testing.T) {
	ranked := []injectRanked{
		{rule: Rule{ID: 1}, inFile: true}, {rule: Rule{ID: 2}}, {rule: Rule{ID: 3}}, {rule: Rule{ID: 4}},
	}
	ids := func(rs []injectRanked) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.rule.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		recall func(context.Context, string) ([]int64, error)
		req    InjectRequest
		want   []int64
	}{
		{"recalled first", func(context.Context, string) ([]int64, error) { return []int64{4, 3}, nil }, InjectRequest{Query: "q"}, []int64{1, 4, 3, 2}},
		{"file as text", func(_ context.Context, text string) ([]int64, error) {
			if text != "a/b.go" {
				return nil, errors.New("no query: want the file")
			}
			return []int64{3}, nil
		}, InjectRequest{File: "a/b.go"}, []int64{1, 3, 2, 4}},
		{"error", func(context.Context, string) ([]int64, error) { return []int64{4}, errors.New("broken") }, InjectRequest{Query: "q"}, []int64{1, 2, 3, 4}},
		{"nothing to search", func(context.Context, string) ([]int64, error) { return []int64{4}, nil }, InjectRequest{}, []int64{1, 2, 3, 4}},
		{"unknown ids", func(context.Context, string) ([]int64, error) { return []int64{99, 1}, nil }, InjectRequest{Query: "q"}, []int64{1, 2, 3, 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(recallFirst(context.Background(), tt.recall, append([]injectRanked(nil), ranked...), tt.req))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
