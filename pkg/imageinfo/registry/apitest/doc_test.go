// Package apitest holds the registry resolver's integration tests that
// need a real control plane: pull secrets read through the API (SecretsFor)
// and `winkube image` against a cluster of emulated nodes. They live apart
// so the resolver's own tests stay quick; -short skips them.
package apitest
