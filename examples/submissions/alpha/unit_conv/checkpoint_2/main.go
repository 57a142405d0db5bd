// unitconv converts a quantity between units of length, mass and temperature.
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
	"c": {"temperature", 0}, "f": {"temperature", 0}, "k": {"temperature", 0},
}

func toKelvin(v float64, u string) float64 {
	switch u {
	case "c":
		return v + 273.15
	case "f":
		return (v-32)*5/9 + 273.15
	}
	return v
}

func fromKelvin(v float64, u string) float64 {
	switch u {
	case "c":
		return v - 273.15
	case "f":
		return (v-273.15)*9/5 + 32
	}
	return v
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "error: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	precision := -1
	if len(args) > 0 && args[0] == "--precision" {
		if len(args) < 2 {
			usage()
		}
		p, err := strconv.Atoi(args[1])
		if err != nil || p < 0 || p > 10 {
			fail("--precision must be an integer from 0 to 10, got %q", args[1])
		}
		precision, args = p, args[2:]
	}
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
	var result float64
	if from.kind == "temperature" {
		result = fromKelvin(toKelvin(value, args[1]), args[2])
	} else {
		result = value * from.scale / to.scale
	}
	var text string
	if precision >= 0 {
		text = strconv.FormatFloat(result, 'f', precision, 64)
	} else {
		text = strconv.FormatFloat(math.Round(result*1e6)/1e6, 'f', -1, 64)
	}
	if text == "-0" {
		text = "0"
	}
	fmt.Printf("%s %s\n", text, args[2])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: unitconv [--precision N] VALUE FROM TO")
	os.Exit(2)
}
