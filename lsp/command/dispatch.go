package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// errMissing is the error of a required field left out.
var errMissing = errors.New("missing")

// ArgError is a command's argument that does not fit its declared type.
type ArgError struct {
	// Command is the command's name.
	Command Name
	// Field is the JSON name of the field at fault ("depth", "range"),
	// or "" when the argument as a whole is.
	Field string
	// Err says what is wrong.
	Err error
}

func (e *ArgError) Error() string {
	var b bytes.Buffer
	if e.Command != "" {
		fmt.Fprintf(&b, "%s: ", e.Command)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "argument field %q: ", e.Field)
	} else {
		b.WriteString("argument: ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ArgError) Unwrap() error { return e.Err }

// Handler runs one command from its raw arguments.
type Handler struct {
	// Command is the command run.
	Command *Command
	run     func(ctx context.Context, args []json.RawMessage) (any, error)
}

// Run decodes the arguments into the command's declared type and runs
// it. An argument that does not fit is an *ArgError.
func (h Handler) Run(ctx context.Context, args []json.RawMessage) (any, error) {
	return h.run(ctx, args)
}

// Bind binds a function to a declared command: its argument and result
// types are the declaration's.
func Bind[A, R any](d Def[A, R], f func(context.Context, A) (R, error)) Handler {
	c := d.c
	return Handler{Command: c, run: func(ctx context.Context, args []json.RawMessage) (any, error) {
		a, err := Decode[A](c, args)
		if err != nil {
			return nil, err
		}
		return f(ctx, a)
	}}
}

// Table maps each name a command answers to (aliases included) to its
// handler.
type Table map[Name]Handler

// NewTable builds the table of the handlers given. It is an error for a
// declared command to have no handler, or two.
func NewTable(hs ...Handler) (Table, error) {
	t := Table{}
	for _, h := range hs {
		for _, n := range append([]Name{h.Command.Name}, h.Command.Aliases...) {
			if _, dup := t[n]; dup {
				return nil, fmt.Errorf("command %s is bound twice", n)
			}
			t[n] = h
		}
	}
	var missing []string
	for _, c := range All() {
		if _, ok := t[c.Name]; !ok {
			missing = append(missing, string(c.Name))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("commands without a handler: %v", missing)
	}
	return t, nil
}

// positionalDecoder is an argument type that also accepts a positional
// form (["FindByID", 2]).
type positionalDecoder interface {
	positional(args []json.RawMessage) error
}

// validator is an argument type that checks its values once decoded.
type validator interface {
	Validate() error
}

// Decode decodes a command's arguments into A: none (when the argument is
// optional), one JSON object, or the positional form the command accepts.
func Decode[A any](c *Command, args []json.RawMessage) (A, error) {
	var a A
	fail := func(err error) (A, error) {
		var ae *ArgError
		if !errors.As(err, &ae) {
			ae = &ArgError{Err: err}
		}
		ae.Command = c.Name
		var zero A
		return zero, ae
	}
	if c.Args == nil {
		return a, nil // extra arguments are ignored, as before
	}
	first := json.RawMessage("null")
	if len(args) > 0 {
		first = bytes.TrimSpace(args[0])
	}
	switch {
	case bytes.Equal(first, []byte("null")):
		if !c.Optional {
			return fail(fmt.Errorf("missing argument; want %s", Shape(c)))
		}
	case len(first) > 0 && first[0] == '{':
		if err := json.Unmarshal(first, &a); err != nil {
			return fail(unmarshalError(err, c))
		}
	default:
		p, ok := any(&a).(positionalDecoder)
		if !ok {
			return fail(fmt.Errorf("want %s, got %s", Shape(c), first))
		}
		if err := p.positional(args); err != nil {
			return fail(err)
		}
	}
	if v, ok := any(&a).(validator); ok {
		if err := v.Validate(); err != nil {
			return fail(err)
		}
	}
	return a, nil
}

// unmarshalError names the field a JSON decoding failed on.
func unmarshalError(err error, c *Command) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field := te.Field
		for i := range c.Args.NumField() {
			if f := c.Args.Field(i); f.Anonymous {
				field = strings.TrimPrefix(field, f.Name+".") // embedded: its fields are the argument's
			}
		}
		return &ArgError{Field: field, Err: fmt.Errorf("want %s, got a JSON %s", jsonKind(te.Type), te.Value)}
	}
	return fmt.Errorf("want %s: %v", Shape(c), err)
}

// jsonKind names the JSON a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// positionalField decodes the i'th positional argument, if there is one,
// into v, named field in errors.
func positionalField(args []json.RawMessage, i int, field string, v any) error {
	if i >= len(args) {
		return nil
	}
	if err := json.Unmarshal(args[i], v); err != nil {
		return &ArgError{Field: field, Err: fmt.Errorf("want %s, got %s", jsonKind(reflect.TypeOf(v)), args[i])}
	}
	return nil
}
