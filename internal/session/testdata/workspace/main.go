package main

// Fetch downloads a page, retrying on timeouts.
func Fetch(url string) string { return url }

func main() { Fetch("https://example.com") }
