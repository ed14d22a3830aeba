// Package mcp serves Anchorage's code graph, routed search and coding
// rules to AI agents over the Model Context Protocol, with the official
// Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// A [Service] wraps one workspace: its index (package analysis), which it
// brings up to date in the background while tools answer from what is
// indexed so far, routed search (package retrieval), and the user's
// memory (package memory). Every tool calls those services; nothing is
// implemented twice. Tools are grouped in profiles ([Profile]) so that
// agents with small context windows see fewer of them.
//
// Agents can record corrections, ask for proposals and read rules, but
// never approve, delete or rewrite a rule: approval stays a person's
// action in the editor or on the command line.
package mcp
