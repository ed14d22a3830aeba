package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// LLM phrases proposals. Propose sends it one prompt per cluster of
// corrections, asking for one JSON object (see LLMAnswerSchema), and
// validates the answer; an LLM that fails, times out or answers anything
// else leaves the cluster to the deterministic fallback.
type LLM interface {
	// Generate returns the model's answer to prompt.
	Generate(ctx context.Context, prompt string) (string, error)
}

// Ollama wire formats, for OllamaConfig.API.
const (
	// APIGenerate is POST {url}/api/generate: a prompt in, a
	// "response" string out.
	APIGenerate = "generate"
	// APIChat is POST {url}/api/chat: messages in, a "message" out.
	APIChat = "chat"
)

// Defaults of OllamaConfig.
const (
	// DefaultOllamaURL is where Ollama listens unless told otherwise.
	DefaultOllamaURL = "http://localhost:11434"
	// DefaultLLMTimeout bounds each request.
	DefaultLLMTimeout = 30 * time.Second
	// maxLLMResponse caps the response body read.
	maxLLMResponse = 1 << 20
)

// OllamaConfig configures an Ollama-compatible server.
type OllamaConfig struct {
	// URL is the server's base URL; "" means DefaultOllamaURL. A
	// trailing /api is accepted.
	URL string
	// Model is the model to run, e.g. "llama3.2"; required.
	Model string
	// API is APIGenerate (the default) or APIChat.
	API string
	// Timeout bounds each request; 0 means DefaultLLMTimeout.
	Timeout time.Duration
}

// Ollama is an LLM served by Ollama or a server speaking its API. It asks
// for JSON output (format "json"), without streaming and at temperature
// 0. It is safe for concurrent use.
type Ollama struct {
	endpoint string
	model    string
	api      string
	timeout  time.Duration
	client   http.Client
}

// NewOllama checks cfg and returns the client. It makes no request: a
// server that is down or lacks the model shows at the first Generate.
func NewOllama(cfg OllamaConfig) (*Ollama, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: a model is required")
	}
	api := cfg.API
	if api == "" {
		api = APIGenerate
	}
	if api != APIGenerate && api != APIChat {
		return nil, fmt.Errorf("llm: API %q (want %q or %q)", cfg.API, APIGenerate, APIChat)
	}
	raw := cfg.URL
	if raw == "" {
		raw = DefaultOllamaURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("llm: url: %w", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("llm: url %q: scheme must be http or https", u.Redacted())
	case u.Host == "":
		return nil, fmt.Errorf("llm: url %q has no host", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("llm: url %q: a base URL takes no query or fragment", u.Redacted())
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("llm: timeout %v is negative", cfg.Timeout)
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultLLMTimeout
	}
	base := strings.TrimSuffix(strings.TrimRight(u.String(), "/"), "/api")
	return &Ollama{endpoint: base + "/api/" + api, model: cfg.Model, api: api, timeout: timeout}, nil
}

// ErrLLMNoModel reports an LLM configuration with a URL but no model.
var ErrLLMNoModel = errors.New("llm: a model is required with a URL")

// LLMOption returns the option that makes a Store phrase proposals with
// the Ollama-compatible server cfg describes, or nil when cfg names
// neither a URL nor a model (no LLM: the deterministic fallback). A URL
// without a model is ErrLLMNoModel; other bad values are NewOllama's
// errors. The command line and the language server both configure their
// LLM through it.
func LLMOption(cfg OllamaConfig) (Option, error) {
	if strings.TrimSpace(cfg.URL) == "" && strings.TrimSpace(cfg.Model) == "" {
		return nil, nil
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, ErrLLMNoModel
	}
	llm, err := NewOllama(cfg)
	if err != nil {
		return nil, err
	}
	return WithLLM(llm), nil
}

// Model returns the configured model.
func (o *Ollama) Model() string { return o.model }

// ollamaMessage is one message of /api/chat.
type ollamaMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ollamaRequest is the body of both requests.
type ollamaRequest struct {
	Model    string          `json:"model"`
	Prompt   string          `json:"prompt,omitempty"`
	Messages []ollamaMessage `json:"messages,omitempty"`
	Format   string          `json:"format"`
	Stream   bool            `json:"stream"`
	Options  map[string]any  `json:"options,omitempty"`
}

// Generate sends prompt and returns the model's answer, bounded by the
// configured timeout and by ctx.
func (o *Ollama) Generate(ctx context.Context, prompt string) (string, error) {
	req := ollamaRequest{Model: o.model, Format: "json", Options: map[string]any{"temperature": 0}}
	if o.api == APIChat {
		req.Messages = []ollamaMessage{{Role: "user", Content: prompt}}
	} else {
		req.Prompt = prompt
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("llm: encoding request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "anchorage")
	resp, err := o.client.Do(hreq)
	if err != nil {
		// The url.Error names the method and URL; a timeout shows as
		// context.DeadlineExceeded through errors.Is.
		return "", fmt.Errorf("llm: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLLMResponse+1))
	if err != nil {
		return "", fmt.Errorf("llm: POST %s: reading response: %w", o.endpoint, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("llm: POST %s: server answered %s%s", o.endpoint, resp.Status, llmErrorDetail(data))
	}
	if len(data) > maxLLMResponse {
		return "", fmt.Errorf("llm: POST %s: response larger than %d bytes", o.endpoint, maxLLMResponse)
	}
	answer, err := decodeOllamaAnswer(data, o.api)
	if err != nil {
		return "", fmt.Errorf("llm: POST %s: %w", o.endpoint, err)
	}
	return answer, nil
}

// llmErrorDetail returns ": <message>" for an Ollama error body
// ({"error": "..."}), or the start of any other body.
func llmErrorDetail(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	msg := string(body)
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if msg = llmExcerpt(msg); msg == "" {
		return ""
	}
	return ": " + msg
}

// llmExcerpt makes a server's message fit for an error: valid UTF-8,
// whitespace collapsed, at most 200 characters.
func llmExcerpt(msg string) string {
	msg = strings.Join(strings.Fields(strings.ToValidUTF8(msg, "\uFFFD")), " ")
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	return msg
}

// decodeOllamaAnswer returns the text of an Ollama answer: one JSON object, or
// the lines of a stream (if a server streams despite "stream": false)
// whose pieces are joined up to the one marked done.
func decodeOllamaAnswer(body []byte, api string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var b strings.Builder
	for n := 0; ; n++ {
		var m struct {
			Response *string `json:"response"`
			Message  *struct {
				Content string `json:"content"`
			} `json:"message"`
			Done  bool   `json:"done"`
			Error string `json:"error"`
		}
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return "", errors.New("empty response")
			}
			return "", errors.New("the answer ended before it was done")
		}
		if err != nil {
			return "", fmt.Errorf("decoding response: %w", err)
		}
		if m.Error != "" {
			return "", fmt.Errorf("server error: %s", llmExcerpt(m.Error))
		}
		switch {
		case api == APIChat && m.Message != nil:
			b.WriteString(m.Message.Content)
		case api != APIChat && m.Response != nil:
			b.WriteString(*m.Response)
		case api == APIChat:
			return "", errors.New(`response has no "message"`)
		default:
			return "", errors.New(`response has no "response"`)
		}
		if m.Done {
			return b.String(), nil
		}
	}
}

// LLMAnswerSchema is the JSON schema an LLM's answer must satisfy; it is
// part of the prompt, and parseLLMAnswer checks it (unknown properties
// are ignored).
const LLMAnswerSchema = `{
  "type": "object",
  "required": ["category", "scope", "content", "rationale"],
  "properties": {
    "category": {"enum": ["preference", "rule", "correction"]},
    "scope": {"type": "string", "pattern": "^(universal|language:[a-z][a-z0-9+#._-]*|project(:.+)?)$"},
    "content": {"type": "string", "minLength": 1, "maxLength": 300, "description": "the rule, imperative, at most 15 words"},
    "rationale": {"type": "string", "maxLength": 300, "description": "why keep it, at most 20 words"}
  }
}`

// Limits on an LLM's answer, beyond which it is garbage.
const (
	maxAnswerRunes        = 300
	maxAnswerContentWords = 40
	maxAnswerReasonWords  = 60
)

// errBadAnswer marks an LLM answer that does not satisfy LLMAnswerSchema.
var errBadAnswer = errors.New("LLM answer does not match the schema")

// llmAnswer is a validated answer.
type llmAnswer struct {
	Category  string
	Scope     string // normalised; "project" alone when no name was given
	Content   string
	Rationale string
}

// parseLLMAnswer validates an LLM's answer against LLMAnswerSchema and
// returns it cleaned: one JSON object (a surrounding Markdown code fence
// is tolerated), its strings valid UTF-8 without control characters,
// whitespace collapsed.
func parseLLMAnswer(text string) (llmAnswer, error) {
	bad := func(format string, args ...any) (llmAnswer, error) {
		return llmAnswer{}, fmt.Errorf("%w: "+format, append([]any{errBadAnswer}, args...)...)
	}
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if !utf8.ValidString(s) {
		return bad("not valid UTF-8")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return bad("not a JSON object: %v", err)
	}
	if obj == nil {
		return bad("not a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return bad("text after the JSON object")
	}
	field := func(name string) (string, error) {
		raw, ok := obj[name]
		if !ok {
			return "", fmt.Errorf("%w: no %q", errBadAnswer, name)
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("%w: %q is not a string", errBadAnswer, name)
		}
		return v, nil
	}
	var a llmAnswer
	var err error
	var fields [4]string
	for i, name := range []string{"category", "scope", "content", "rationale"} {
		if fields[i], err = field(name); err != nil {
			return llmAnswer{}, err
		}
	}
	a.Category = strings.ToLower(strings.TrimSpace(fields[0]))
	if !validCategory(a.Category) {
		return bad("category %q", fields[0])
	}
	scope := strings.TrimSpace(fields[1])
	if strings.EqualFold(scope, KindProject) {
		a.Scope = KindProject
	} else if a.Scope, err = NormalizeScope(scope); err != nil {
		return bad("scope: %v", err)
	} else if IsTeamScope(a.Scope) {
		return bad("scope %q: a proposal from corrections is personal", scope)
	}
	if a.Content, err = cleanAnswerText(fields[2], maxAnswerContentWords); err != nil {
		return bad("content: %v", err)
	}
	if a.Content == "" {
		return bad("content is empty")
	}
	if a.Rationale, err = cleanAnswerText(fields[3], maxAnswerReasonWords); err != nil {
		return bad("rationale: %v", err)
	}
	return a, nil
}

// cleanAnswerText collapses whitespace in s and checks it: no control
// characters, at most maxAnswerRunes characters and maxWords words.
func cleanAnswerText(s string, maxWords int) (string, error) {
	if !utf8.ValidString(s) {
		return "", errors.New("not valid UTF-8")
	}
	words := strings.FieldsFunc(s, unicode.IsSpace)
	for _, w := range words {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0 {
			return "", errors.New("control characters")
		}
	}
	if len(words) > maxWords {
		return "", fmt.Errorf("%d words, at most %d", len(words), maxWords)
	}
	out := strings.Join(words, " ")
	if n := utf8.RuneCountInString(out); n > maxAnswerRunes {
		return "", fmt.Errorf("%d characters, at most %d", n, maxAnswerRunes)
	}
	return out, nil
}

// maxPromptVariants and maxPromptVariantRunes bound the corrections
// quoted in a prompt.
const (
	maxPromptVariants     = 10
	maxPromptVariantRunes = 500
)

// buildProposalPrompt asks for one proposal for cluster c of project (or "").
func buildProposalPrompt(c *correctionCluster, project string) string {
	var b strings.Builder
	b.WriteString("Analyze these corrections that a developer made to an AI coding assistant, and create one memory rule.\n\nCorrection variants:\n")
	for i, v := range c.variants() {
		if i == maxPromptVariants {
			fmt.Fprintf(&b, "- (%d more)\n", len(c.variants())-i)
			break
		}
		if r := []rune(v); len(r) > maxPromptVariantRunes {
			v = string(r[:maxPromptVariantRunes]) + "…"
		}
		fmt.Fprintf(&b, "- %s\n", strings.Join(strings.Fields(v), " "))
	}
	fmt.Fprintf(&b, "\nFrequency: %d\n", c.frequency())
	if project != "" {
		fmt.Fprintf(&b, "Project: %s\n", project)
	} else {
		b.WriteString("Project: none\n")
	}
	if f := c.file(); f != "" {
		fmt.Fprintf(&b, "File: %s", f)
		if l := c.language(); l != "" {
			fmt.Fprintf(&b, " (%s)", l)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nAnswer with one JSON object and nothing else, matching this JSON schema:\n")
	b.WriteString(LLMAnswerSchema)
	b.WriteString(`

Rules:
- "universal" = applies to ALL projects (e.g., token efficiency, file size limits, concise answers)
- "language:X" = specific to one programming language, X in lower case (e.g., language:go for Go panic handling)
- "project:Y" = specific to this project's code (e.g., its own UI components)
- category: "rule" for a directive about code, "preference" for style or taste, "correction" for a fact that was wrong
- content = actionable, imperative mood, at most 15 words
- rationale = why store this, at most 20 words
`)
	return b.String()
}
