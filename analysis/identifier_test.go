package analysis

import (
	"reflect"
	"testing"
)

func TestSplitIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"FindByID", []string{"Find", "By", "ID"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"get_user_name", []string{"get", "user", "name"}},
		{"parseJSON2XML", []string{"parse", "JSON", "2", "XML"}},
		{"__init__", []string{"init"}},
		{"$scope", []string{"scope"}},
		{"x", []string{"x"}},
		{"", nil},
		{"ÜberName", []string{"Über", "Name"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SplitIdentifier(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitIdentifier(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestInitials(t *testing.T) {
	for in, want := range map[string]string{"FindByID": "fbi", "NewService": "ns", "get_user": "gu", "HTTPServer": "hs"} {
		if got := initials(in); got != want {
			t.Errorf("initials(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLastIdentifier(t *testing.T) {
	tests := map[string]string{
		"s.repo":                      "repo",
		"std::fmt::Display":           "Display",
		"Repo[T]":                     "Repo",
		"a.b().c()":                   "c",
		"a[0].b.c":                    "c",
		"foo!":                        "foo",
		"new URL(x)":                  "URL",
		"getClient().getUser(id)":     "getUser",
		"err.read().decode().strip()": "strip",
		"(a as B)":                    "",
		"*pkg.Type":                   "Type",
		"Vec<T>":                      "Vec",
		"x)":                          "",
		"":                            "",
	}
	for in, want := range tests {
		if got := lastIdentifier(in); got != want {
			t.Errorf("lastIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}
