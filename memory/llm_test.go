package memory

import (
	"errors"
	"strings"
	"testing"
)

func TestMemoryNewOllama(t *testing.T) {
	tests := []struct {
		name     string
		cfg      OllamaConfig
		endpoint string // "" for an error
	}{
		{"defaults", OllamaConfig{Model: "llama3.2"}, DefaultOllamaURL + "/api/generate"},
		{"chat", OllamaConfig{Model: "m", API: APIChat}, DefaultOllamaURL + "/api/chat"},
		{"trailing /api/", OllamaConfig{Model: "m", URL: "http://gpu:8080/api/"}, "http://gpu:8080/api/generate"},
		{"path prefix", OllamaConfig{Model: "m", URL: "https://proxy.example/ollama"}, "https://proxy.example/ollama/api/generate"},
		{"no model", OllamaConfig{URL: DefaultOllamaURL}, ""},
		{"bad API", OllamaConfig{Model: "m", API: "completions"}, ""},
		{"bad scheme", OllamaConfig{Model: "m", URL: "ftp://x"}, ""},
		{"no host", OllamaConfig{Model: "m", URL: "http://"}, ""},
		{"query", OllamaConfig{Model: "m", URL: "http://x?y=1"}, ""},
		{"negative timeout", OllamaConfig{Model: "m", Timeout: -1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := NewOllama(tt.cfg)
			if tt.endpoint == "" {
				if err == nil {
					t.Errorf("NewOllama(%+v) succeeded", tt.cfg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.endpoint != tt.endpoint || o.Model() != tt.cfg.Model || o.timeout <= 0 {
				t.Errorf("endpoint %s timeout %v, want %s", o.endpoint, o.timeout, tt.endpoint)
			}
		})
	}
}

func TestMemoryDecodeOllamaAnswer(t *testing.T) {
	tests := []struct {
		name, api, body, want string
		ok                    bool
	}{
		{"generate", APIGenerate, `{"model":"m","response":"{\"a\":1}","done":true}`, `{"a":1}`, true},
		{"chat", APIChat, `{"model":"m","message":{"role":"assistant","content":"hi"},"done":true}`, "hi", true},
		{"generate stream", APIGenerate, "{\"response\":\"{\\\"a\\\"\",\"done\":false}\n{\"response\":\":1}\",\"done\":false}\n{\"response\":\"\",\"done\":true}\n", `{"a":1}`, true},
		{"chat stream", APIChat, "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"message\":{\"content\":\"b\"},\"done\":true}", "ab", true},
		{"stream cut short", APIGenerate, `{"response":"{","done":false}`, "", false},
		{"error object", APIGenerate, `{"error":"out of memory"}`, "", false},
		{"chat answer to generate", APIGenerate, `{"message":{"content":"x"},"done":true}`, "", false},
		{"generate answer to chat", APIChat, `{"response":"x","done":true}`, "", false},
		{"empty", APIGenerate, ``, "", false},
		{"not JSON", APIGenerate, `<html>`, "", false},
		{"response not a string", APIGenerate, `{"response":5,"done":true}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeOllamaAnswer([]byte(tt.body), tt.api)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("decodeOllamaAnswer = %q, %v; want %q (ok %v)", got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestMemoryParseLLMAnswer(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want llmAnswer
		ok   bool
	}{
		{"plain", `{"category":"rule","scope":"language:Go","content":" Never  use panic ","rationale":"crashes"}`,
			llmAnswer{CategoryRule, "language:go", "Never use panic", "crashes"}, true},
		{"fenced", "```json\n{\"category\":\"Preference\",\"scope\":\"Universal\",\"content\":\"Be brief\",\"rationale\":\"\"}\n```",
			llmAnswer{CategoryPreference, "universal", "Be brief", ""}, true},
		{"bare project", `{"category":"rule","scope":"project","content":"x","rationale":"y"}`,
			llmAnswer{CategoryRule, "project", "x", "y"}, true},
		{"extra fields", `{"category":"rule","scope":"universal","content":"x","rationale":"y","confidence":0.9}`,
			llmAnswer{CategoryRule, "universal", "x", "y"}, true},
		{"newlines collapsed", "{\"category\":\"rule\",\"scope\":\"universal\",\"content\":\"a\\nb\\tc\",\"rationale\":\"y\"}",
			llmAnswer{CategoryRule, "universal", "a b c", "y"}, true},
		{"null", `null`, llmAnswer{}, false},
		{"string", `"rule"`, llmAnswer{}, false},
		{"control character", "{\"category\":\"rule\",\"scope\":\"universal\",\"content\":\"a\\u0007b\",\"rationale\":\"y\"}", llmAnswer{}, false},
		{"too long", `{"category":"rule","scope":"universal","content":"` + strings.Repeat("x", 301) + `","rationale":"y"}`, llmAnswer{}, false},
		{"language without name", `{"category":"rule","scope":"language:","content":"x","rationale":"y"}`, llmAnswer{}, false},
		{"invalid UTF-8", "{\"category\":\"rule\",\"scope\":\"universal\",\"content\":\"\xff\",\"rationale\":\"y\"}", llmAnswer{}, false},
		{"duplicate keys, last wins", `{"category":"style","category":"rule","scope":"universal","content":"x","rationale":"y"}`,
			llmAnswer{CategoryRule, "universal", "x", "y"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLLMAnswer(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseLLMAnswer = %+v, %v; want %+v (ok %v)", got, err, tt.want, tt.ok)
			}
			if err != nil && !errors.Is(err, errBadAnswer) {
				t.Errorf("error %v is not errBadAnswer", err)
			}
		})
	}
}

func TestMemoryPromptBounds(t *testing.T) {
	var cs []Correction
	for i := range 30 {
		cs = append(cs, Correction{ID: int64(i + 1), Text: "never use panic " + strings.Repeat("really ", 200) + string(rune('a'+i%26)), File: "main.go", Language: "go"})
	}
	clusters := clusterCorrections(cs)
	if len(clusters) != 1 {
		t.Fatalf("%d clusters", len(clusters))
	}
	p := buildProposalPrompt(clusters[0], "app")
	if len(p) > 12000 || !strings.Contains(p, "more)") || !strings.Contains(p, "Project: app") || !strings.Contains(p, "File: main.go (go)") ||
		!strings.Contains(p, LLMAnswerSchema) {
		t.Errorf("prompt of %d bytes:\n%s", len(p), p)
	}
}
