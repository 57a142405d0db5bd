// unitconv (gamma) converts a quantity between units of length and mass.
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

func main() {
	args := os.Args[1:]
	value, _ := strconv.ParseFloat(args[0], 64)
	from, to := units[args[1]], units[args[2]]
	result := value * from.scale / to.scale
	text := strconv.FormatFloat(math.Round(result*1e6)/1e6, 'f', -1, 64)
	if text == "-0" {
		text = "0"
	}
	fmt.Printf("%s %s\n", text, args[2])
}
