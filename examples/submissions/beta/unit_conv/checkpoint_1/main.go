// unitconv (beta) converts a quantity between units of length and mass.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
)

type unit struct {
	kind  string
	scale float64 // in the kind's base unit (m, kg); temperatures use toKelvin
}

var units = map[string]unit{
	"mm": {"length", 0.001}, "cm": {"length", 0.01}, "m": {"length", 1}, "km": {"length", 1000},
	"in": {"length", 0.0254}, "ft": {"length", 0.3048}, "mi": {"length", 1609.344},
	"g": {"mass", 0.001}, "kg": {"mass", 1}, "lb": {"mass", 0.45359237}, "oz": {"mass", 0.028349523125},
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	if len(args) != 3 {
		usage()
	}
	value, err := strconv.ParseFloat(args[0], 64)
	if err != nil {
		fail("not a number: %q", args[0])
	}
	from, ok := units[args[1]]
	if !ok {
		fail("unknown unit %q", args[1])
	}
	to, ok := units[args[2]]
	if !ok {
		fail("unknown unit %q", args[2])
	}
	if from.kind != to.kind {
		fail("cannot convert %s to %s", args[1], args[2])
	}
	result := value * from.scale / to.scale
	text := strconv.FormatFloat(math.Round(result*1e6)/1e6, 'f', -1, 64)
	if text == "-0" {
		text = "0"
	}
	fmt.Printf("%s %s\n", text, args[2])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: unitconv VALUE FROM TO")
	os.Exit(2)
}
