module github.com/schedkit/schedkit

go 1.26

require (
	github.com/google/go-cmp v0.7.0 // indirect
	pgregory.net/rapid v1.2.0 // indirect
)
