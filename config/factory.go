package config

import (
	"fmt"

	"github.com/schedkit/schedkit/framework"
)

// NoArgs checks the args given to a plugin that takes none: nil passes,
// anything else is an error naming the plugin and the type.
func NoArgs(plugin string, args any) error {
	if args != nil {
		return fmt.Errorf("%s: takes no args, got %T", plugin, args)
	}
	return nil
}

// NewPlugin builds a plugin from the args a framework.Factory receives,
// with newPlugin, the plugin's NewX(args A, h) constructor: nil args (or a
// nil *A) mean def(), an A or a *A is passed on as given, and any other
// type is an error naming the plugin and both types (see ArgsFrom). Every
// XFactory of packages filter, scoring and scheduling is NewPlugin with
// plugin X's name, defaults and constructor.
func NewPlugin[A any](plugin string, args any, h framework.Handle, def func() A,
	newPlugin func(A, framework.Handle) (framework.Plugin, error)) (framework.Plugin, error) {
	a, err := ArgsFrom(plugin, args, def)
	if err != nil {
		return nil, err
	}
	return newPlugin(a, h)
}
